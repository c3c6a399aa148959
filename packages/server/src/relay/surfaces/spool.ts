import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { RelayError, relayErrors } from '../pipeline/errors.js';
import { boundaryOf, MultipartScanner, type PartInfo } from './multipart.js';
import type { SpoolLease } from './spool-budget.js';

/** A multipart request body kept in a temporary file (files never in memory), with its parts located. */
export interface MultipartSpool {
  file: string;
  size: number;
  contentType: string;
  parts: PartInfo[];
  /** Text fields by name (the first of each name). */
  fields: Record<string, string>;
  /** Removes the temporary file, then gives its bytes back to the spool budget (once; later calls do nothing). */
  dispose(): void;
}

/** What one spool may take: `limit` bytes of body, within its caller's share of the spool budget. */
export interface SpoolLimits {
  limit: number;
  lease: SpoolLease;
}

const tooLarge = () => new RelayError(413, 'request body is too large', 'invalid_request_error');

/** The length a request announced (content-length), when it did. */
function announcedLength(body: NodeJS.ReadableStream): number | undefined {
  const raw = (body as Partial<IncomingMessage>).headers?.['content-length'];
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The body's chunks; a failure to read them (the client reset or closed the connection) is the client's 499.
 * The request is not destroyed when the reader stops early: its refusal can still be answered.
 */
async function* clientChunks(body: NodeJS.ReadableStream): AsyncGenerator<Buffer> {
  const readable = body as Readable;
  const source: AsyncIterable<Buffer> =
    typeof readable.iterator === 'function'
      ? readable.iterator({ destroyOnReturn: false })
      : (body as AsyncIterable<Buffer>);
  try {
    yield* source;
  } catch {
    throw relayErrors.clientClosed();
  }
  if ((body as Partial<IncomingMessage>).complete === false) throw relayErrors.clientClosed();
}

/** Writes all of `chunk` at the file's current end. */
async function writeAll(fh: fsp.FileHandle, chunk: Buffer): Promise<void> {
  for (let at = 0; at < chunk.length;) at += (await fh.write(chunk, at, chunk.length - at)).bytesWritten;
}

/**
 * Streams a multipart/form-data request body to a temporary file while scanning it, so a retry on another
 * channel can send it again and the model can be read wherever it sits in the form. Bounded by `limit` bytes,
 * and by the caller's lease: an announced length is taken before anything is written, a chunked body's bytes
 * chunk by chunk, so the disk never holds more than the budget allows. On any failure the file is removed and
 * the lease released; a refusal before the body's end closes the connection.
 */
export async function spoolMultipart(
  body: NodeJS.ReadableStream,
  contentType: string | undefined,
  { limit, lease }: SpoolLimits,
): Promise<MultipartSpool> {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw relayErrors.badBody('a multipart/form-data body with a boundary is required');
  const announced = announcedLength(body);
  if (announced !== undefined && announced > limit) throw closing(tooLarge());
  lease.hold(announced ?? 0);
  const scanner = new MultipartScanner(boundary);
  const file = path.join(os.tmpdir(), `tollway-upload-${crypto.randomBytes(8).toString('hex')}`);
  let fh: fsp.FileHandle | undefined;
  let disposed = false;
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    const open = fh;
    fh = undefined;
    void (open ? open.close().catch(() => undefined) : Promise.resolve())
      .then(() => fsp.rm(file, { force: true }))
      .catch(() => undefined)
      .finally(() => lease.release());
  };
  let size = 0;
  try {
    fh = await fsp.open(file, 'wx', 0o600);
    for await (const chunk of clientChunks(body)) {
      size += chunk.length;
      if (size > limit) throw tooLarge();
      lease.hold(size);
      try {
        scanner.push(chunk);
      } catch (err) {
        throw relayErrors.badBody((err as Error).message);
      }
      await writeAll(fh, chunk);
    }
    try {
      scanner.end();
    } catch (err) {
      throw relayErrors.badBody((err as Error).message);
    }
    const written = fh;
    fh = undefined;
    await written.close();
  } catch (err) {
    dispose();
    if (err instanceof RelayError && (body as Partial<IncomingMessage>).complete === false) throw closing(err);
    throw err;
  }
  const fields: Record<string, string> = {};
  for (const p of scanner.parts) if (p.value !== undefined && !(p.name in fields)) fields[p.name] = p.value;
  return { file, size, contentType: contentType!, parts: scanner.parts, fields, dispose };
}

/** The refusal with `connection: close`: the rest of the body is not read, so the connection is not reused. */
function closing(e: RelayError): RelayError {
  e.headers = { ...e.headers, connection: 'close' };
  return e;
}

/**
 * The spooled body for one upstream attempt, read from the file, with the text of some fields replaced (the
 * model after the channel's mapping). Returns the stream and its exact length.
 */
export function spooledBody(
  spool: MultipartSpool,
  replace: Record<string, string>,
): { body: Readable; length: number } {
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
