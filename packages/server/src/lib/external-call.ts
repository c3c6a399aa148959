// Third-party HTTP calls of the management API: one timeout, size limit and error shape for all of them.
import { request } from 'undici';
import { ErrorCode } from '@tollway/shared';
import { coded } from './errors.js';

// Failures answer 4xx, not 5xx, so the console shows their message rather than its generic server error.
// The services called here are chosen by root (options) or the operator (environment), never by a user, so
// they may live on a private network (a self-hosted identity provider) and the outbound guard does not apply.
// Redirects are not followed, and a failure names its kind, never the address that failed (visitors see it).

/** Longest wait for a service's answer, connection to last byte. */
const TIMEOUT_MS = 15_000;
/** Longest answer read from a service. */
const MAX_ANSWER_CHARS = 256 * 1024;

export interface ExternalCall {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A form (sent as application/x-www-form-urlencoded) or a JSON body. */
  form?: Record<string, string>;
  json?: unknown;
}

export interface ExternalAnswer {
  status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  text: string;
}

/**
 * Calls a third-party service of the management API (sign-in providers, the bot check) with undici and reads
 * its JSON answer. An unreachable service is an ApiError naming `service` and the kind of failure only, so no
 * address nor `secrets` (kept in the signature for callers that name them) can reach a message.
 */
export async function callExternal(
  service: string,
  url: string,
  call: ExternalCall,
  _secrets: string[] = [],
): Promise<ExternalAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  let body: string | undefined;
  if (call.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(call.form).toString();
  } else if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  }
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: call.method,
      headers,
      body,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = res.statusCode;
    text = (await res.body.text()).slice(0, MAX_ANSWER_CHARS);
  } catch (err) {
    throw coded(ErrorCode.ExternalUnreachable, `cannot reach ${service}: ${failureKind(err)}`, {
      service,
      reason: failureKind(err),
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status, body: parsed, text };
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** failureKind's words for a call that timed out. */
export const NO_ANSWER_IN_TIME = 'no answer in time';

/** What went wrong, without the address or any text of the answer: a timeout, or the system's error code. */
export function failureKind(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (TIMEOUT_CODES.has(code) || e.name === 'TimeoutError' || e.name === 'AbortError') return NO_ANSWER_IN_TIME;
  return /^E[A-Z]+$/.test(code) ? `connection failed (${code})` : 'connection failed';
}
