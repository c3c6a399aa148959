import crypto from 'node:crypto';
import type { InboundCall } from '../pipeline/types.js';
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

/** The OpenAI endpoints whose answers are cached (the Responses API is stateful: its ids name stored answers). */
const CACHED_OPENAI_ENDPOINTS: ReadonlySet<string> = new Set(['chat', 'completions', 'embeddings']);

/**
 * Whether a call's answer may be cached at all: a converted chat/completions/embeddings call (not a surface that
 * meters itself, not the Responses API), no cost asked in its usage (the receipt is the call's own bill), and no
 * tool the provider runs on its side (a web search's results change; its calls are billed per use).
 */
export function cacheable(call: InboundCall): boolean {
  if (call.surface || call.usageCost) return false;
  const format = call.format.name;
  if (format === 'responses') return false;
  if (format === 'openai' && !CACHED_OPENAI_ENDPOINTS.has(call.openaiEndpoint ?? 'chat')) return false;
  return declaredToolCalls(call.body, call.model) === undefined;
}

/** JSON with object keys sorted at every depth (arrays keep their order), appended to `out`. */
function canonical(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    out.push(value === undefined ? 'null' : JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      canonical(value[i], out);
    }
    out.push(']');
    return;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  out.push('{');
  let first = true;
  for (const k of keys) {
    if (obj[k] === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    canonical(obj[k], out);
  }
  out.push('}');
}

/** The request body in canonical JSON, without the top-level fields that do not change the answer. */
export function canonicalBody(body: Record<string, unknown>): string {
  const out: string[] = ['{'];
  let first = true;
  for (const k of Object.keys(body).sort()) {
    if (IGNORED_FIELDS.has(k) || body[k] === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    canonical(body[k], out);
  }
  out.push('}');
  return out.join('');
}

/** The cache key of a call within `scope` (e.g. `t:12`, `u:3`, `g:vip`): 64 hex characters. */
export function cacheKey(scope: string, call: InboundCall): string {
  return crypto
    .createHash('sha256')
    .update(scope)
    .update('\0')
    .update(call.format.name)
    .update('\0')
    .update(call.openaiEndpoint ?? '')
    .update(call.stream ? '\0s\0' : '\0j\0')
    .update(call.model)
    .update('\0')
    .update(canonicalBody(call.body))
    .digest('hex');
}
