import { computeQuota, type Price } from '@tollway/shared';
import { chargeMetrics } from '../../accounting/charge-metrics.js';
import type { AttemptResult, InboundCall, OutputBudget } from '../pipeline/types.js';

export type { OutputBudget } from '../pipeline/types.js';
import { MAX_TOKEN_LIMIT } from '../entry/validate.js';

/**
 * How much a token-billed call holds, and what output that hold affords. A call is held for what it may cost:
 * its prompt (estimated, an upper bound) plus its output cap (the client's, else UNCAPPED_OUTPUT_HOLD_TOKENS) for
 * every choice, or as much of that as the balance has, but never less than the prompt plus one output token per
 * choice (else the call is refused for quota). When the balance binds, the upstream is sent the output cap the hold
 * affords (clamp), and the relay meters the answer against it: a stream is ended where the hold is spent, a plain
 * answer past it (the upstream ignored the cap) is not delivered.
 */

/** Output tokens per choice held for a call whose client set no cap (current models answer up to 16K–64K). */
export const UNCAPPED_OUTPUT_HOLD_TOKENS = 32_768;

/** What to reserve: up to `amount`, at least `minimum`. */
export interface HoldPlan {
  amount: number;
  minimum: number;
  /** Ratio-priced with a non-zero price: the output is metered against the hold. */
  metered: boolean;
  price: Price;
  /** The prompt tokens the amount holds for (the ceiling): what the clamp counts as spent on the prompt. */
  prompt: number;
  /** Output tokens per choice the full amount covers, and the number of choices. */
  perChoice: number;
  choices: number;
  /** Of the amount, the quota held for provider-run tools the request declares (pipeline/handler.ts). */
  tools: number;
}

export const UNMETERED: OutputBudget = { cap: undefined, tokens: Infinity };

/** Choices a call asks for (OpenAI `n`, Gemini `candidateCount`); validated to 1..MAX_CHOICES before this. */
function choicesOf(body: Record<string, unknown>): number {
  const n = body.n ?? (body.generationConfig as { candidateCount?: unknown } | undefined)?.candidateCount;
  return typeof n === 'number' && n > 1 ? Math.floor(n) : 1;
}

/** Calls whose answer is generated text billed per output token (the chat formats, OpenAI completions). */
const generates = (call: InboundCall): boolean =>
  !call.surface && call.openaiEndpoint !== 'embeddings' && call.openaiEndpoint !== 'moderations';

/**
 * The most prompt tokens a call's text can be: a token of the tokenizers vendors use is at least one byte of UTF-8,
 * so the text's bytes (`call.bytes`, the JSON body or the prompt fields) bound it, as the estimate (a token per 3
 * bytes) does not: text of rare characters costs a token per byte. Inline media are billed by the vendor's own
 * rule and are bounded by neither.
 */
export const promptCeiling = (call: InboundCall, estimate: number): number => Math.max(estimate, call.bytes);

/** Bodies up to this size are counted exactly when the balance cannot hold their ceiling; larger ones hold it. */
export const EXACT_COUNT_MAX_BYTES = 64 * 1024;

/**
 * The hold of a call at `price` (already scaled to its units): up to its cost with a `ceiling` of prompt tokens (an
 * upper bound), at least its cost with `prompt` (the estimate). A hold below the amount is re-planned with the
 * prompt counted (see the relay handler) before anything goes upstream.
 */
export function planHold(
  price: Price,
  prompt: number,
  call: InboundCall,
  quotaPerUnit: number,
  preConsumedQuota: number,
  ceiling = prompt,
): HoldPlan {
  // The reservation never counts a negative, fractional or unbounded limit, whatever a parser let through.
  const limit = call.maxTokens > 0 ? Math.min(Math.floor(call.maxTokens), MAX_TOKEN_LIMIT) : 0;
  const priced = price.mode === 'ratio' && price.modelRatio > 0;
  const metered =
    (price.mode === 'expr' || (priced && price.completionRatio > 0)) && price.groupRatio > 0 && generates(call);
  if (!metered) {
    // Calls without token output (embeddings, moderations) and the surfaces that meter themselves.
    const pre = priced && !limit ? preConsumedQuota : 0;
    const amount = computeQuota(price, { promptTokens: ceiling, completionTokens: limit }, quotaPerUnit) + pre;
    const minimum = Math.min(
      amount,
      computeQuota(price, { promptTokens: prompt, completionTokens: limit }, quotaPerUnit) + pre,
    );
    return { amount, minimum, metered, price, prompt: ceiling, perChoice: limit, choices: 1, tools: 0 };
  }
  const choices = choicesOf(call.body);
  const perChoice = limit || UNCAPPED_OUTPUT_HOLD_TOKENS;
  const amount = computeQuota(price, { promptTokens: ceiling, completionTokens: perChoice * choices }, quotaPerUnit);
  // The prompt and one output token per choice, rounded up (never below the exact bill: no decimal math needed).
  const minimum = Math.min(
    amount,
    price.mode === 'ratio'
      ? Math.max(1, Math.ceil((prompt + choices * price.completionRatio) * price.modelRatio * price.groupRatio))
      : computeQuota(price, { promptTokens: prompt, completionTokens: choices }, quotaPerUnit),
  );
  return { amount, minimum, metered, price, prompt: ceiling, perChoice, choices, tools: 0 };
}

/** What `held` (taken for `plan`, at least its minimum) affords: the whole plan, or the most output that fits. */
export function budgetOf(plan: HoldPlan, held: number, quotaPerUnit: number): OutputBudget {
  if (!plan.metered) return UNMETERED;
  // The balance covers the whole cap: nothing to clamp or meter (an answer past the client's own cap is charged in
  // full at settlement; only a balance spent meanwhile leaves a shortfall, counted and logged).
  if (held >= plan.amount) return UNMETERED;
  if (plan.price.mode === 'expr') return exprBudget(plan, held, quotaPerUnit);
  const p = plan.price as Extract<Price, { mode: 'ratio' }>;
  const promptCost = computeQuota(p, { promptTokens: plan.prompt, completionTokens: 0 }, quotaPerUnit);
  const perToken = p.modelRatio * p.groupRatio * p.completionRatio * plan.choices;
  let perChoice = Math.min(plan.perChoice - 1, Math.max(1, Math.floor((held - promptCost) / perToken)));
  // Exact check (decimal, rounded as the bill is): step down until the cost fits in the hold (one output token
  // per choice always fits: that was the minimum).
  while (
    perChoice > 1 &&
    computeQuota(p, { promptTokens: plan.prompt, completionTokens: perChoice * plan.choices }, quotaPerUnit) > held
  )
    perChoice--;
  return { cap: perChoice, tokens: perChoice * plan.choices };
}

/**
 * What `held` affords at an expression price: the most output per choice whose cost fits, found by halving (an
 * expression's price per output token need not be one number: tiers, rules). Assumes, as every price list does,
 * that more output never costs less; one output token per choice always fits (the minimum).
 */
function exprBudget(plan: HoldPlan, held: number, quotaPerUnit: number): OutputBudget {
  const fits = (perChoice: number) =>
    computeQuota(plan.price, { promptTokens: plan.prompt, completionTokens: perChoice * plan.choices }, quotaPerUnit) <=
    held;
  let low = 1;
  let high = plan.perChoice - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return { cap: low, tokens: low * plan.choices };
}

/**
 * An answer went past the output its hold pays for (the upstream ignored the cap it was sent): counted; the error
 * a stream's sink throws to end the stream there (a plain answer is refused instead).
 */
export function outputCapExceeded(kind: 'stream' | 'plain'): Error {
  chargeMetrics.capExceeded.inc({ kind });
  return new Error('the answer went past the output its hold pays for');
}

/** A plain answer past the output its hold pays for (counted): a failed attempt, never delivered. */
export function plainPastCap(): Extract<AttemptResult, { kind: 'failed' }> {
  outputCapExceeded('plain');
  return { kind: 'failed', status: 502, message: 'the upstream answered past the output cap it was sent', body: '' };
}
