import type { ServerResponse } from 'node:http';
import { presetHeader } from '../../lib/gateway-response.js';
import { RESPONSE_CACHE_HEADER } from '@tollway/shared';
import type { TokenAuth } from '../entry/auth-cache.js';
import { reserveQuota } from '../pipeline/admit.js';
import { promptContent } from '../pipeline/chat-content.js';
import { journalCall } from '../pipeline/lifecycle.js';
import type { RelayContext } from '../pipeline/services.js';
import type { InboundCall, OutputBudget, RelayedAttempt } from '../pipeline/types.js';
import { billCall, newRequestId, REQUEST_ID_HEADER, settleCall, type CallRecord } from '../billing/settle.js';
import type { ResolvedPrice } from '../billing/price.js';
import type { CallUsage } from '../billing/usage.js';
import { countSuccess } from '../limits/request-limits.js';
import { settleAdmission, type RateAdmission } from '../limits/admission.js';
import { AnswerCapture } from './capture.js';
import { embedPrompt } from './embed.js';
import { partitionKey } from './key.js';
import { countResponseCache } from '../../lib/metrics.js';
import type { CacheMatch } from './response-cache.js';
import type { CachedAnswer } from './store.js';

/** A hit's log row and settlement name no channel: none was called. */
const NO_CHANNEL = { id: 0, name: '' };

/** What answering a call from the cache needs of it (the chat pipeline's state after admission). */
export interface CacheCall {
  auth: TokenAuth;
  group: string;
  call: InboundCall;
  price: ResolvedPrice;
  admitted: { limits: Parameters<typeof countSuccess>[1]; rate: RateAdmission | undefined };
  ip: string;
  started: number;
  res: ServerResponse;
}

/**
 * After admission, for a call the cache applies to (ResponseCache.match): a hit is answered here, without an
 * upstream call, and billed at the cache's share of the price (true: the call is over). A miss is marked
 * `x-tollway-cache: miss` and its answer captured on its way to the caller, for storeAnswer (false).
 */
export async function answerFromCache(ctx: RelayContext, m: CacheMatch, c: CacheCall): Promise<boolean> {
  const found = ctx.relay.responseCache.find(m);
  let answer = found instanceof Promise ? await found : found;
  if (!answer && m.rules.semanticModel) answer = await similarAnswer(ctx, m, c);
  countResponseCache(answer ? 'hit' : 'miss');
  if (!answer) {
    presetHeader(c.res, RESPONSE_CACHE_HEADER, 'miss');
    m.capture = new AnswerCapture(c.res, m.rules.maxAnswerBytes);
    return false;
  }
  await answerHit(ctx, m, c, answer);
  return true;
}

/**
 * Semantic mode: the answer of the most similar prompt of the call's partition (its scope and every other
 * parameter equal), when at least response_cache.semantic_threshold similar. The prompt's embedding is kept on the
 * match, to be stored with the answer should this be a miss.
 */
async function similarAnswer(ctx: RelayContext, m: CacheMatch, c: CacheCall): Promise<CachedAnswer | undefined> {
  const cache = ctx.relay.responseCache;
  const text = promptContent(c.call);
  const vector = text ? await embedPrompt(ctx, c.group, m.rules.semanticModel!, text) : undefined;
  if (!vector || !cache.semantic) return undefined;
  const part = partitionKey(m.scope, c.call);
  m.semantic = { part, vector };
  const key = cache.semantic.nearest(part, vector, m.rules.similarity);
  if (key === undefined) return undefined;
  const found = cache.find({ ...m, key });
  const answer = found instanceof Promise ? await found : found;
  if (!answer) cache.semantic.forget(part, key);
  return answer;
}

/**
 * A hit: the cached usage billed at the current price × the hit share (rounded down: never more than the full
 * price), held and settled through the normal path (a consume log row marked `cache_hit`), the answer replayed.
 */
async function answerHit(ctx: RelayContext, m: CacheMatch, c: CacheCall, answer: CachedAnswer): Promise<void> {
  const { auth, call } = c;
  const billed = { price: c.price, usage: answer.usage, model: call.model, upstreamModel: call.model, group: c.group };
  const full = billCall(ctx, billed);
  // An expression that fails on the cached counts bills the hit nothing (a normal call would be held at its ceiling).
  const quota = full.failed === undefined ? Math.floor(full.quota * m.rules.hitShare) : 0;
  let held: Awaited<ReturnType<typeof reserveQuota>>;
  try {
    held = await reserveQuota(ctx, auth, quota);
  } catch (err) {
    settleAdmission(ctx, c.admitted.rate, 0);
    throw err;
  }
  const requestId = newRequestId();
  const identity = { requestId, auth, group: c.group, model: call.model, stream: call.stream, ip: c.ip };
  if (quota > 0) await journalCall(ctx, { ...identity, started: c.started, target: held.target, reserved: quota });
  replay(c.res, answer, requestId);
  const tokens = answer.usage.promptTokens + answer.usage.completionTokens;
  settleAdmission(ctx, c.admitted.rate, tokens);
  countSuccess(ctx.counters, c.admitted.limits);
  const record: CallRecord = {
    ...identity,
    upstreamModel: call.model,
    started: c.started,
    firstByteMs: 0,
    channel: NO_CHANNEL,
    usedChannels: [],
    price: c.price,
    usage: answer.usage,
    target: held.target,
    hold: held.hold,
    content: ctx.relay.settings.get().logContent ? { input: promptContent(call) } : undefined,
    callId: quota > 0 ? requestId : undefined,
    cacheHit: true,
  };
  await settleCall(ctx, record, { ...full, quota, failed: undefined });
}

const isSse = (contentType: string): boolean => contentType.includes('text/event-stream');

/** The cached answer written as it was first sent: a stream's SSE events, or the JSON body, marked as a hit. */
function replay(res: ServerResponse, a: CachedAnswer, requestId: string): void {
  const head: Record<string, string | number> = {
    'content-type': a.contentType,
    'cache-control': 'no-cache',
    [RESPONSE_CACHE_HEADER]: 'hit',
    [REQUEST_ID_HEADER]: requestId,
  };
  if (isSse(a.contentType)) head['x-accel-buffering'] = 'no';
  else head['content-length'] = Buffer.byteLength(a.body);
  res.writeHead(a.status, head);
  res.end(a.body);
}

/**
 * After a miss was served and settled: its answer stored when it was served whole (not cut, not clamped to what
 * the balance afforded, a 200) and small enough to keep.
 */
export function storeAnswer(
  ctx: RelayContext,
  m: CacheMatch,
  result: RelayedAttempt,
  usage: CallUsage,
  budget: OutputBudget,
  model: string,
): void {
  const capture = m.capture;
  if (!capture || result.cut || budget.cap !== undefined || capture.status !== 200) return;
  const body = capture.body();
  if (body === undefined || body.length === 0) return;
  ctx.relay.responseCache.save(m, {
    model,
    status: capture.status,
    contentType: capture.type(),
    body,
    usage,
    expiresAt: Date.now() + m.rules.ttlMs,
  });
}
