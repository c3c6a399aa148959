import { request } from 'undici';
import { ApiError } from '../../http/errors.js';

// Failures answer 4xx, not 5xx, so the console shows their message rather than its generic server error.

/** Longest wait for a provider's answer, connection to last byte. */
const TIMEOUT_MS = 15_000;
/** Longest answer read from a provider. */
const MAX_ANSWER_CHARS = 256 * 1024;

export interface ProviderCall {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A form (sent as application/x-www-form-urlencoded) or a JSON body. */
  form?: Record<string, string>;
  json?: unknown;
}

export interface ProviderAnswer {
  status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  text: string;
}

/**
 * Calls a sign-in provider with undici and reads its JSON answer. An unreachable provider is an ApiError naming
 * `provider`; `secrets` are removed from any message.
 */
export async function callProvider(provider: string, url: string, call: ProviderCall, secrets: string[] = []): Promise<ProviderAnswer> {
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
    throw new ApiError(redact(`cannot reach ${provider}: ${(err as Error).message}`, secrets), 400);
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

/** The provider's own error text from an OAuth error answer ({error, error_description} or {message}). */
export function providerError(answer: ProviderAnswer): string {
  const b = answer.body as { error?: unknown; error_description?: unknown; message?: unknown } | undefined;
  const parts = [b?.error_description, b?.error, b?.message].filter((p): p is string => typeof p === 'string' && p !== '');
  if (parts.length) return parts[0]!.slice(0, 200);
  return `HTTP ${answer.status}${answer.text ? `: ${answer.text.slice(0, 200)}` : ''}`;
}

/** The access_token of a token endpoint's answer, or an ApiError with the provider's reason. */
export function accessTokenOf(provider: string, answer: ProviderAnswer): string {
  const token = (answer.body as { access_token?: unknown } | undefined)?.access_token;
  if (answer.status >= 400 || typeof token !== 'string' || !token) {
    throw new ApiError(`${provider} refused the sign-in code (${providerError(answer)}): start the sign-in again`, 400);
  }
  return token;
}

/** A JSON object answer, or an ApiError saying the provider's user could not be read. */
export function userObjectOf(provider: string, answer: ProviderAnswer): Record<string, unknown> {
  const b = answer.body;
  if (answer.status >= 400 || b === null || typeof b !== 'object' || Array.isArray(b)) {
    throw new ApiError(`cannot read the ${provider} user (${providerError(answer)})`, 400);
  }
  return b as Record<string, unknown>;
}

/** A string or number field as a string ('' when absent). */
export const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');
