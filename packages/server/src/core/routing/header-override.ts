import { parseJsonObject } from './channel-row.js';
import { compileSafePattern, UnsafePatternError, type SafePattern } from '../../lib/safe-pattern.js';

/**
 * A channel's `header_override` (new-api's field): a JSON object of header name → value sent on every upstream
 * call of the channel, after the adaptor's own headers (so it wins). Values may hold placeholders:
 *
 * - `{api_key}`, anywhere in the value: the key the call uses (one key of a multi-key channel).
 * - `{client_header:<name>}`, as the whole value: the caller's header of that name (the entry is left out when the
 *   caller sent none).
 *
 * Keys `*`, `re:<regex>` and `regex:<regex>` (values ignored) pass the caller's headers through: all of them, or
 * those whose name matches. Explicit entries win over passed-through ones. Channel tests leave out client
 * placeholders and pass-through rules (there is no caller).
 *
 * Safety rules, applied when a channel is saved (refused with a code) and again when the cache is built (a row
 * from an import that breaks one has that entry skipped):
 * - Headers of the connection itself or that Tollway must control are never set: FORBIDDEN_HEADERS.
 * - Credential headers (CREDENTIAL_HEADERS) must take their value from `{api_key}`: the secret stays in the key,
 *   sealed at rest and masked in answers, never as plain text in this field; and no placeholder may copy a
 *   caller's credential header (it would send the caller's Tollway token upstream).
 * - Pass-through never carries forbidden or credential headers, nor the caller's content-type or WebSocket
 *   handshake headers (the realtime subprotocol list may hold the caller's key).
 */

/** The connection's own headers (hop-by-hop, framing, host) and those Tollway sets (undici reads no compressed answer). */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-authenticate',
  'proxy-authorization',
  'accept-encoding',
]);

/** Headers that carry a credential (upstream keys, and the caller's Tollway token on the way in). */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'mj-api-secret',
  'cookie',
]);

/**
 * Caller headers never copied upstream (pass-through or `{client_header:…}`) besides credentials: the realtime
 * handshake's subprotocol list may carry the caller's key (`openai-insecure-api-key.<key>`).
 */
const CALLER_SECRETS: ReadonlySet<string> = new Set(['sec-websocket-protocol']);

/** Caller headers pass-through rules never carry beyond the sets above. */
const NOT_PASSED: ReadonlySet<string> = new Set([
  'content-type',
  'sec-websocket-protocol',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
]);

export const API_KEY_PLACEHOLDER = '{api_key}';
const CLIENT_PREFIX = '{client_header:';
/** Entries one override may hold, and the longest value. */
export const HEADER_OVERRIDE_MAX_ENTRIES = 64;
export const HEADER_VALUE_MAX = 8192;

/** RFC 9110 token characters: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Control characters other than tab (CR, LF and NUL would split or end the header). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** One explicit entry: the lowercase name and how its value is made. */
export interface HeaderEntry {
  name: string;
  /** The value with `{api_key}` still in it (absent when `client` is set). */
  template: string;
  /** The template holds `{api_key}`. */
  usesKey: boolean;
  /** `{client_header:<name>}`: the caller's header of this (lowercase) name is the value. */
  client: string | undefined;
}

/** A channel's override, parsed once when the channel cache is built. */
export interface HeaderOverride {
  entries: HeaderEntry[];
  /** `*`: every caller header that may pass. */
  passAll: boolean;
  /** `re:` / `regex:` rules, compiled by the linear-time engine (an administrator's pattern). */
  passPatterns: SafePattern[];
}

export type HeaderProblem = { kind: 'invalid' | 'forbidden' | 'credential'; header: string };

/** Never passed through from a caller, whatever the rules say. */
export const passable = (name: string): boolean =>
  !FORBIDDEN_HEADERS.has(name) && !CREDENTIAL_HEADERS.has(name) && !NOT_PASSED.has(name);

function patternOf(key: string): string | undefined {
  if (key.startsWith('re:')) return key.slice(3).trim();
  if (key.startsWith('regex:')) return key.slice(6).trim();
  return undefined;
}

/** The entry of one name and value, or its problem (undefined: an empty value, left out as new-api does). */
function entryOf(name: string, value: unknown): HeaderEntry | HeaderProblem | undefined {
  if (!TOKEN.test(name)) return { kind: 'invalid', header: name };
  if (typeof value !== 'string' || value.length > HEADER_VALUE_MAX || CONTROL.test(value))
    return { kind: 'invalid', header: name };
  if (FORBIDDEN_HEADERS.has(name)) return { kind: 'forbidden', header: name };
  const v = value.trim();
  if (v === '') return undefined;
  if (v.startsWith(CLIENT_PREFIX)) {
    const inner = v.endsWith('}') ? v.slice(CLIENT_PREFIX.length, -1).trim().toLowerCase() : '';
    if (!TOKEN.test(inner)) return { kind: 'invalid', header: name };
    if (CREDENTIAL_HEADERS.has(name) || CREDENTIAL_HEADERS.has(inner) || CALLER_SECRETS.has(inner))
      return { kind: 'credential', header: name };
    if (FORBIDDEN_HEADERS.has(inner)) return { kind: 'forbidden', header: name };
    return { name, template: '', usesKey: false, client: inner };
  }
  const usesKey = v.includes(API_KEY_PLACEHOLDER);
  if (CREDENTIAL_HEADERS.has(name) && !usesKey) return { kind: 'credential', header: name };
  return { name, template: v, usesKey, client: undefined };
}

/**
 * Reads an override object. Strict (saving): the first broken rule is returned as a problem. Lenient (the cache):
 * broken entries are skipped. Undefined when nothing is left to do.
 */
export function readHeaderOverride(
  obj: Record<string, unknown>,
  strict: true,
): HeaderOverride | HeaderProblem | undefined;
export function readHeaderOverride(obj: Record<string, unknown>, strict: false): HeaderOverride | undefined;
export function readHeaderOverride(
  obj: Record<string, unknown>,
  strict: boolean,
): HeaderOverride | HeaderProblem | undefined {
  const out: HeaderOverride = { entries: [], passAll: false, passPatterns: [] };
  const keys = Object.keys(obj);
  if (strict && keys.length > HEADER_OVERRIDE_MAX_ENTRIES)
    return { kind: 'invalid', header: `(${keys.length} entries, at most ${HEADER_OVERRIDE_MAX_ENTRIES})` };
  for (const raw of keys.slice(0, HEADER_OVERRIDE_MAX_ENTRIES)) {
    const key = raw.trim().toLowerCase();
    if (key === '') continue;
    if (key === '*') {
      out.passAll = true;
      continue;
    }
    const pattern = patternOf(key);
    if (pattern !== undefined) {
      let re: SafePattern | undefined;
      try {
        // Matched against lowercase names, as Node gives them; the case of the pattern does not matter.
        re = pattern ? compileSafePattern(pattern, { caseInsensitive: true }) : undefined;
      } catch (err) {
        if (!(err instanceof UnsafePatternError)) throw err;
        re = undefined;
      }
      if (re) out.passPatterns.push(re);
      else if (strict) return { kind: 'invalid', header: raw };
      continue;
    }
    const e = entryOf(key, obj[raw]);
    if (e && 'kind' in e) {
      if (strict) return e;
      continue;
    }
    if (e) out.entries.push(e);
  }
  return out.entries.length || out.passAll || out.passPatterns.length ? out : undefined;
}

/** The override of a stored header_override text (lenient); undefined for none, empty or unreadable. */
export const parseHeaderOverride = (text: string | null | undefined): HeaderOverride | undefined =>
  readHeaderOverride(parseJsonObject<Record<string, unknown>>(text, {}), false);
