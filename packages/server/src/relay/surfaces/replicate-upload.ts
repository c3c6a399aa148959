import fs from 'node:fs';
import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { baseUrlOf } from '../providers/base-url.js';
import type { AttemptResult, SurfaceAttempt } from '../pipeline/types.js';
import { failed } from './replicate-images.js';
import type { PartInfo } from './multipart.js';
import type { MultipartSpool } from './spool.js';

/**
 * An image edit's file on a Replicate channel, as new-api sends it: uploaded to `POST {base}/v1/files` (a form
 * with one `content` part, streamed from the caller's spool), its `urls.get` then the prediction's `image_prompt`.
 */

/** The file fields looked at first, in order; else the form's first file. */
const FILE_FIELDS = ['image', 'image[]', 'image_prompt'];
const UPLOAD_ANSWER_MAX = 64 * 1024;
const BAD_REQUEST = 400;
const UPSTREAM_FAILED = 502;

/** The file an edit sends Replicate, or undefined when the form has none. */
export function editFile(spool: MultipartSpool): PartInfo | undefined {
  const files = spool.parts.filter((p) => p.filename !== undefined);
  for (const name of FILE_FIELDS) {
    const f = files.find((p) => p.name === name);
    if (f) return f;
  }
  return files[0];
}

/** A filename safe inside a quoted header value. */
const safeName = (name: string | undefined) => (name ?? 'image').replace(/["\r\n\\]/g, '_') || 'image';

/** Uploads the edit's file; its URL, or the failure of the call. */
export function replicateUpload(a: SurfaceAttempt, spool: MultipartSpool) {
  return async (agent: Dispatcher, signal: AbortSignal): Promise<string | AttemptResult> => {
    const file = editFile(spool);
    if (!file) return failed(BAD_REQUEST, 'an image file is required for edits on Replicate channels');
    const boundary = `----tollway${Date.now().toString(16)}${Math.random().toString(16).slice(2)}`;
    const head = Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="content"; filename="${safeName(file.filename)}"\r\n` +
        `content-type: ${file.contentType || 'application/octet-stream'}\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    async function* parts() {
      yield head;
      if (file!.size > 0) yield* fs.createReadStream(spool.file, { start: file!.start, end: file!.end - 1 });
      yield tail;
    }
    const res = await request(`${baseUrlOf(a.channel)}/v1/files`, {
      method: 'POST',
      dispatcher: agent,
      signal,
      headers: {
        authorization: `Bearer ${a.key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + file.size + tail.length),
      },
      body: Readable.from(parts(), { objectMode: false }),
    });
    const text = (await res.body.text()).slice(0, UPLOAD_ANSWER_MAX);
    if (res.statusCode !== 200 && res.statusCode !== 201)
      return failed(
        res.statusCode >= 400 ? res.statusCode : UPSTREAM_FAILED,
        `uploading the image to Replicate answered ${res.statusCode}`,
        text,
      );
    let url: unknown;
    try {
      url = (JSON.parse(text) as { urls?: { get?: unknown } }).urls?.get;
    } catch {
      url = undefined;
    }
    return typeof url === 'string' && url
      ? url
      : failed(UPSTREAM_FAILED, 'Replicate answered the upload without its URL', text);
  };
}
