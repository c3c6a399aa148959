// A multipart video submit (OpenAI's create with an `input_reference` file): spooled to a temporary file, never held.
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { RelayError } from '../../pipeline/errors.js';
import type { PartInfo } from '../../surfaces/multipart.js';
import { spooledBody, spoolMultipart, type MultipartSpool, type SpoolLimits } from '../../surfaces/spool.js';

/** The one file field OpenAI's video create takes. */
export const VIDEO_FILE_FIELD = 'input_reference';
/** Kling takes its image inline (base64): a file larger than this is refused (Kling's own limit). */
export const KLING_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
/** Where a submit body carries its upload: a symbol, so it is never serialized or shown. */
const UPLOAD = Symbol('video upload');

/** A spooled form and its file part. */
export interface VideoUpload {
  spool: MultipartSpool;
  file: PartInfo;
}

const unsupported = (name: string, why: string) =>
  new RelayError(400, why, 'invalid_request_error', 'unsupported_parameter', name);

/**
 * Reads a multipart submit: streamed to a spool (at most `limits.limit` bytes, else 413; within the caller's
 * lease of the spool budget, else 429), its text fields returned and
 * its `input_reference` file kept on disk. Any other file, or a second one, is refused. The caller disposes
 * `upload.spool` (also when no file came, `spool` is returned for that).
 */
export async function readVideoForm(
  stream: NodeJS.ReadableStream,
  contentType: string | undefined,
  limits: SpoolLimits,
): Promise<{ fields: Record<string, string>; spool: MultipartSpool; upload?: VideoUpload }> {
  const spool = await spoolMultipart(stream, contentType, limits);
  const files = spool.parts.filter((p) => p.filename !== undefined);
  const other = files.find((p) => p.name !== VIDEO_FILE_FIELD);
  if (other || files.length > 1) {
    spool.dispose();
    const name = other?.name ?? VIDEO_FILE_FIELD;
    throw unsupported(
      name,
      other
        ? `file field ${name} is not supported; send the reference image as ${VIDEO_FILE_FIELD}`
        : `only one ${VIDEO_FILE_FIELD} file is accepted`,
    );
  }
  const fields = { ...spool.fields };
  if (files[0]) delete fields[VIDEO_FILE_FIELD];
  return { fields, spool, upload: files[0] ? { spool, file: files[0] } : undefined };
}

/** Attaches an upload to a submit body (kept out of JSON and of the stored row). */
export function withUpload<T extends object>(body: T, upload: VideoUpload | undefined): T {
  if (upload) Object.defineProperty(body, UPLOAD, { value: upload, enumerable: true });
  return body;
}

export const uploadOf = (body: object): VideoUpload | undefined => (body as { [UPLOAD]?: VideoUpload })[UPLOAD];

/** The form as the caller sent it, streamed from the spool, with the model replaced by the channel's. */
export function uploadForm(u: VideoUpload, model: string): { body: Readable; length: number; contentType: string } {
  const { body, length } = spooledBody(u.spool, { model });
  return { body, length, contentType: u.spool.contentType };
}

/** The file as base64 (Kling's inline image); a file over `max` bytes is a 400. */
export async function uploadBase64(u: VideoUpload, max: number): Promise<string> {
  if (u.file.size > max)
    throw new RelayError(
      400,
      `${VIDEO_FILE_FIELD} is larger than ${max} bytes`,
      'invalid_request_error',
      'file_too_large',
      VIDEO_FILE_FIELD,
    );
  const fh = await fs.open(u.spool.file, 'r');
  try {
    const buf = Buffer.alloc(u.file.size);
    await fh.read(buf, 0, u.file.size, u.file.start);
    return buf.toString('base64');
  } finally {
    await fh.close();
  }
}
