import crypto from 'node:crypto';
import type { CacheableCall } from './call.js';
import { declaredToolCalls } from '../billing/tool-price.js';

/**
 * The response cache's key: sha256 of the caller's scope, the client format (and OpenAI endpoint), the stream flag,
 * the model and the request body in canonical JSON (object keys sorted, at every depth). Fields that name the caller
 * or steer the provider's bookkeeping, never the answer, are left out, so they do not split the cache.
 */

/** Top-level request fields that do not change the answer: who asks, and the provider's own caching and storage. */
const IGNORED_FIELDS: ReadonlySet<string> = new Set([
  'user',
  'metadata',
  'prompt_cache_key',
  'safety_identifier',
  'store',
]);

/** The fields that carry the prompt: semantic mode compares them by meaning, the rest of the request must match. */
const PROMPT_FIELDS: ReadonlySet<string> = new Set([
  ...IGNORED_FIELDS,
  'messages',
  'prompt',
  'input',
  'system',
  'contents',
  'systemInstruction',
  'system_instruction',
]);

/** The OpenAI endpoints whose answers are cached (the Responses API is stateful: its ids name stored answers). */
const CACHED_OPENAI_ENDPOINTS: ReadonlySet<string> = new Set(['chat', 'completions', 'embeddings']);

/**
 * Whether a call's answer may be cached at all: a converted chat/completions/embeddings call (not a surface that
 * meters itself, not the Responses API), no cost asked in its usage (the receipt is the call's own bill), and no
 * tool the provider runs on its side (a web search's results change; its calls are billed per use).
 */
export function cacheable(call: CacheableCall): boolean {
  if (call.surface || call.usageCost) return false;
  const format = call.format.name;
  if (format === 'responses') return false;
  if (format === 'openai' && !CACHED_OPENAI_ENDPOINTS.has(call.openaiEndpoint ?? 'chat')) return false;
  return declaredToolCalls(call.body, call.model) === undefined;
}

/** JSON with object keys sorted at every depth (arrays keep their order; undefined members left out as JSON does). */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return value === undefined ? 'null' : JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonical(value[i]);
    return out + ']';
  }
  return members(value as Record<string, unknown>, undefined);
}

/** An object's members in key order, those in `skip` left out. */
function members(obj: Record<string, unknown>, skip: ReadonlySet<string> | undefined): string {
  const keys = Object.keys(obj);
  if (keys.length > 1) keys.sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined || skip?.has(k)) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + canonical(v);
    first = false;
  }
  return out + '}';
}

/** The request body in canonical JSON, without the top-level fields that do not change the answer. */
export const canonicalBody = (body: Record<string, unknown>): string => members(body, IGNORED_FIELDS);

/** SHA-256 in hex: Node's one-shot hash where it has one (22+), else a Hash object. */
const sha256 = (text: string): string =>
  typeof crypto.hash === 'function'
    ? crypto.hash('sha256', text, 'hex')
    : crypto.createHash('sha256').update(text).digest('hex');

/**
 * Semantic mode's partition of a call within `scope`: the key of everything but its prompt. Prompts are compared
 * by meaning only within one partition, so the scope, model, format and parameters always match exactly.
 */
export function partitionKey(scope: string, call: CacheableCall): string {
  const kind = `${call.format.name}\0${call.openaiEndpoint ?? ''}\0${call.stream ? 's' : 'j'}`;
  return sha256(`${scope}\0${kind}\0${call.model}\0${members(call.body, PROMPT_FIELDS)}`);
}

/** The cache key of a call within `scope` (e.g. `t:12`, `u:3`, `g:vip`): 64 hex characters. */
export function cacheKey(scope: string, call: CacheableCall): string {
  const kind = `${call.format.name}\0${call.openaiEndpoint ?? ''}\0${call.stream ? 's' : 'j'}`;
  return sha256(`${scope}\0${kind}\0${call.model}\0${canonicalBody(call.body)}`);
}
