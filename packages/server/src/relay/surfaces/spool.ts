import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { RelayError, relayErrors } from '../errors.js';
import { boundaryOf, MultipartScanner, type PartInfo } from './multipart.js';

/** A multipart request body kept in a temporary file (files never in memory), with its parts located. */
export interface MultipartSpool {
  file: string;
  size: number;
  contentType: string;
  parts: PartInfo[];
  /** Text fields by name (the first of each name). */
  fields: Record<string, string>;
  /** Removes the temporary file. */
  dispose(): void;
}

/**
 * Streams a multipart/form-data request body to a temporary file while scanning it, so a retry on another
 * channel can send it again and the model can be read wherever it sits in the form. Bounded by `limit` bytes.
 */
export async function spoolMultipart(body: NodeJS.ReadableStream, contentType: string | undefined, limit: number): Promise<MultipartSpool> {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw relayErrors.badBody('a multipart/form-data body with a boundary is required');
  const scanner = new MultipartScanner(boundary);
  const file = path.join(os.tmpdir(), `tollway-upload-${crypto.randomBytes(8).toString('hex')}`);
  const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
  const dispose = () => fs.rm(file, { force: true }, () => undefined);
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new RelayError(413, 'request body is too large', 'invalid_request_error');
      try {
        scanner.push(chunk);
      } catch (err) {
        throw relayErrors.badBody((err as Error).message);
      }
      // once() drops its listeners when it settles: a long upload does not pile up error listeners.
      if (!out.write(chunk)) await once(out, 'drain');
    }
    try {
      scanner.end();
    } catch (err) {
      throw relayErrors.badBody((err as Error).message);
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    out.destroy();
    dispose();
    throw err;
  }
  const fields: Record<string, string> = {};
  for (const p of scanner.parts) if (p.value !== undefined && !(p.name in fields)) fields[p.name] = p.value;
  return { file, size, contentType: contentType!, parts: scanner.parts, fields, dispose };
}

/**
 * The spooled body for one upstream attempt, read from the file, with the text of some fields replaced (the
 * model after the channel's mapping). Returns the stream and its exact length.
 */
export function spooledBody(spool: MultipartSpool, replace: Record<string, string>): { body: Readable; length: number } {
  const edits = spool.parts
    .filter((p) => p.filename === undefined && replace[p.name] !== undefined && replace[p.name] !== p.value)
    .map((p) => ({ start: p.start, end: p.end, text: Buffer.from(replace[p.name]!) }))
    .sort((a, b) => a.start - b.start);
  const length = edits.reduce((n, e) => n - (e.end - e.start) + e.text.length, spool.size);
  async function* pieces() {
    let at = 0;
    for (const e of edits) {
      if (e.start > at) yield* fs.createReadStream(spool.file, { start: at, end: e.start - 1 });
      yield e.text;
      at = e.end;
    }
    if (at < spool.size) yield* fs.createReadStream(spool.file, { start: at });
  }
  return { body: Readable.from(pieces(), { objectMode: false }), length };
}
