import type { IncomingHttpHeaders } from 'node:http';

/**
 * Vendor headers a client may set that go on to an upstream of the same vendor, by the wire format the upstream
 * speaks. An allow-list: everything else the client sent stays here — its credentials (authorization,
 * x-api-key, x-goog-api-key, api-key, cookies), hop-by-hop headers and SDK telemetry.
 *
 * - Anthropic: `anthropic-beta` turns beta features on; `anthropic-version` picks the API version (the client's
 *   replaces the gateway's default, only where the upstream takes the header; Bedrock moves the beta list into
 *   the body).
 * - OpenAI and compatible: `openai-beta` (e.g. `assistants=v2`). Not `openai-organization` / `openai-project`:
 *   they name the caller's own OpenAI account, not the channel key's (the channel's organization is sent instead).
 * - Gemini and the rest: none.
 */
const FORWARDED: Readonly<Record<string, readonly string[]>> = {
  anthropic: ['anthropic-beta', 'anthropic-version'],
  openai: ['openai-beta'],
};

/** Headers the client may only replace: sent when the upstream's own request already has them (a default). */
const REPLACE_ONLY: ReadonlySet<string> = new Set(['anthropic-version']);

/** A longer value is not forwarded (a real beta list is a few hundred characters). */
const MAX_VALUE_LENGTH = 2048;

/**
 * The allowed vendor headers the client sent for an upstream speaking `format` whose own headers are `upstream`,
 * or undefined when it sent none (the common case: no object is made). Reads only the few names of the list.
 */
export function clientHeaders(
  format: string,
  from: IncomingHttpHeaders | undefined,
  upstream: Record<string, string>,
): Record<string, string> | undefined {
  const names = FORWARDED[format];
  if (!names || !from) return undefined;
  let out: Record<string, string> | undefined;
  for (const name of names) {
    if (REPLACE_ONLY.has(name) && !(name in upstream)) continue;
    const v = from[name];
    const value = Array.isArray(v) ? v.join(',') : v;
    if (!value || value.length > MAX_VALUE_LENGTH) continue;
    (out ??= {})[name] = value;
  }
  return out;
}

/**
 * `headers` with the client's allowed vendor headers for `format` added; the channel's own headers win. Returns
 * `headers` itself when the client sent none.
 */
export function withClientHeaders(
  format: string,
  headers: Record<string, string>,
  from: IncomingHttpHeaders | undefined,
): Record<string, string> {
  const extra = clientHeaders(format, from, headers);
  return extra ? Object.assign(extra, headers) : headers;
}
