import type { ModelFallbacks } from '@tollway/shared';
import { countModelFallback } from '../../lib/metrics.js';
import { forRequest, requestOf, resolvePrice, scaledPrice, type ResolvedPrice } from '../billing/price.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import type { AttemptFailure } from '../upstream/message.js';
import { holdForModel, type HeldCall } from './call-hold.js';
import { RelayError } from './errors.js';
import type { AttemptsState } from './lifecycle.js';
import type { RelayContext } from './services.js';

/**
 * Model fallbacks (the ModelFallbacks option): a call whose model's channels are exhausted — the channel loop found
 * no further channel, or the retry budget ran out — on a 5xx, a 429, a timeout or unreachable upstream, or a
 * context-length refusal moves to the next model of its model's list that the token may use, is priced and served
 * in the call's group, takes the prompt, and that the call's hold covers (grown from the same payer when needed).
 * Nothing has reached the caller then, so streamed calls move the same way. The call is billed at the model that
 * served it; its log row names the model asked for (fallback_from) and why it moved (fallback_reason).
 */
export type FallbackReason = '5xx' | '429' | 'timeout' | 'context_length';

/**
 * Context-length refusals as the vendors word them: OpenAI's code context_length_exceeded ("maximum context
 * length", the Responses API's "exceeds the context window"), Anthropic's "prompt is too long" and "exceed context
 * limit", Gemini's "input token count (…) exceeds the maximum number of tokens allowed", Bedrock's "Input is too
 * long for requested model".
 */
const CONTEXT_LENGTH =
  /context_length_exceeded|maximum context length|exceeds the context window|prompt is too long|exceed context limit|input token count.{0,40}exceeds the maximum number of tokens|input is too long for requested model/i;

/** Whether an upstream's 400 (its body, else its message) refuses the prompt for its length. */
export function isContextLengthRefusal(text: string): boolean {
  return CONTEXT_LENGTH.test(text);
}

/** Why a call whose model's channels are exhausted moves on, from its last failure; undefined: it does not. */
export function fallbackReason(status: number, contextLength: boolean): FallbackReason | undefined {
  if (status === 0) return 'timeout';
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  return status === 400 && contextLength ? 'context_length' : undefined;
}

/** A call's place in its model's fallback list. */
export interface FallbackRoute {
  /** The model the caller asked for. */
  from: string;
  /** The next index of its list to try. */
  next: number;
  /** Why the call last moved. */
  reason: FallbackReason;
}

/** What a move to a fallback model reads and changes of a call on its way through the channel loop. */
export interface FallbackCall extends HeldCall, AttemptsState<AttemptFailure> {
  auth: TokenAuth;
  group: string;
  model: string;
  price: ResolvedPrice;
  cancelled: boolean;
  overLimit: RelayError | undefined;
  /** The last failed attempt was a 400 refusing the prompt's length. */
  contextLength: boolean;
  fallback: FallbackRoute | undefined;
}

/**
 * Moves a call no channel of its model served to the next usable fallback model: true with the call's model,
 * price, hold and budget set for it and its channel loop started afresh; false when it does not move (the caller
 * left, the failure is not one that moves, or no fallback is usable).
 */
export async function fallBack(ctx: RelayContext, s: FallbackCall, lists: ModelFallbacks): Promise<boolean> {
  if (s.cancelled) return false;
  const from = s.fallback?.from ?? s.model;
  const list = lists[from];
  if (!list?.length) return false;
  // No attempt (channels over their own limits, or none left to pick): a 429, or an unavailable model.
  const status = s.last?.status ?? (s.overLimit ? 429 : 503);
  const reason = fallbackReason(status, s.contextLength);
  if (!reason) return false;
  for (let i = s.fallback?.next ?? 0; i < list.length; i++) {
    const model = list[i]!;
    if (model === from || model === s.model) continue;
    const price = await usable(ctx, s, model);
    if (!price) continue;
    s.fallback = { from, next: i + 1, reason };
    s.model = model;
    s.price = price;
    s.tried.clear();
    s.firstAttempt = 0;
    s.overLimit = undefined;
    s.contextLength = false;
    countModelFallback(reason);
    return true;
  }
  return false;
}

/** The price of a fallback model the call may move to (allowed, priced, served with the prompt, held for). */
async function usable(ctx: RelayContext, s: FallbackCall, model: string): Promise<ResolvedPrice | undefined> {
  if (s.auth.modelLimits && !s.auth.modelLimits.has(model)) return undefined;
  const price = forRequest(resolvePrice(ctx.options, model, s.group, s.auth.acceptUnsetRatio), requestOf(s.price));
  if (!price) return undefined;
  const inputLimit = ctx.channelCache.inputLimit(s.group, model);
  if (inputLimit === undefined || s.prompt > inputLimit) return undefined;
  try {
    return (await holdForModel(ctx, s, model, scaledPrice(price.price, s.call.units))) ? price : undefined;
  } catch (err) {
    // A billing expression that fails for this call: that model cannot price it.
    if (err instanceof RelayError) return undefined;
    throw err;
  }
}
