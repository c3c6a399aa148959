import { request, type Dispatcher } from 'undici';

/** A body longer than the limit given to readCapped. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
  }
}

/** Reads a body as UTF-8 text, at most `maxBytes` of it; a longer one throws BodyTooLarge as soon as it passes. */
export async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyTooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A GET for JSON on an administrator's behalf: the guard's dispatcher, one time limit for headers, body and whole. */
export function getJson(url: string, dispatcher: Dispatcher, userAgent: string, timeoutMs: number) {
  return request(url, {
    method: 'GET',
    dispatcher,
    headers: { accept: 'application/json', 'user-agent': userAgent },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
}
