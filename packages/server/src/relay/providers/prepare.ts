import type { UpstreamAdaptor, UpstreamCall } from './types.js';

export type SendableRequest = { origin: string; path: string; headers: Record<string, string>; body: string };

/**
 * The request as it goes out: the adaptor's `prepare` step when it has one (reshape, sign, add a fetched
 * credential), else the body as JSON — at once, without a promise, on the common path. A failing `prepare`
 * becomes `{ error }` with its status (502 by default).
 */
export function prepareRequest(
  adaptor: UpstreamAdaptor,
  call: UpstreamCall,
  url: URL,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): SendableRequest | Promise<SendableRequest | { error: { status: number; message: string } }> {
  if (!adaptor.prepare)
    return { origin: url.origin, path: url.pathname + url.search, headers, body: JSON.stringify(body) };
  return prepared(adaptor.prepare, call, url, headers, body);
}

async function prepared(
  prepare: NonNullable<UpstreamAdaptor['prepare']>,
  call: UpstreamCall,
  url: URL,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<SendableRequest | { error: { status: number; message: string } }> {
  try {
    const p = await prepare(call, { url, headers, body });
    return { origin: p.url.origin, path: p.url.pathname + p.url.search, headers: p.headers, body: p.body };
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    return { error: { status: typeof status === 'number' ? status : 502, message: (err as Error).message } };
  }
}

/** An error whose status the attempt reports (e.g. 401 when a credential is refused). */
export class UpstreamPrepareError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
