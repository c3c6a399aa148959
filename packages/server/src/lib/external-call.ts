// Third-party HTTP calls of the management API: one timeout, size limit and error shape for all of them.
import { request } from 'undici';
import { ApiError } from '../http/errors.js';

// Failures answer 4xx, not 5xx, so the console shows their message rather than its generic server error.

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
 * its JSON answer. An unreachable service is an ApiError naming `service`; `secrets` are removed from any message.
 */
export async function callExternal(service: string, url: string, call: ExternalCall, secrets: string[] = []): Promise<ExternalAnswer> {
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
    throw new ApiError(redact(`cannot reach ${service}: ${(err as Error).message}`, secrets), 400);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status, body: parsed, text };
}

function redact(message: string, secrets: string[]): string {
  let out = message;
  for (const s of secrets) if (s) out = out.split(s).join('***');
  return out;
}
