import { BillingExprError, type Price } from '@tollway/shared';
import { combineHolds, type Hold, type ReserveTarget } from '../../accounting/ledger.js';
import {
  budgetOf,
  EXACT_COUNT_MAX_BYTES,
  planHold,
  promptCeiling,
  type HoldPlan,
  type OutputBudget,
} from '../billing/output-hold.js';
import { declaredToolCalls, toolQuota } from '../billing/tool-price.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { reserveQuota } from './admit.js';
import { relayErrors } from './errors.js';
import type { RelayContext } from './services.js';
import type { RelaySettings } from './settings.js';
import { countBodyTokens } from './token-count.js';
import type { InboundCall } from './types.js';

/**
 * Stage 3, the hold: up to the call's cost at its prompt's ceiling (a token per byte of text), at least its cost at
 * the estimate. A hold the balance kept below the ceiling's cost is planned again on the prompt counted (bodies up
 * to EXACT_COUNT_MAX_BYTES; a larger one must hold its ceiling), so neither the clamp nor the charge rests on the
 * estimate. Counting happens only when the balance binds: never on the hot path of a funded caller.
 */
export async function holdFor(
  ctx: RelayContext,
  auth: TokenAuth,
  call: InboundCall,
  price: Price,
  estimate: number,
  settings: RelaySettings,
) {
  const ceiling = promptCeiling(call, estimate);
  // Tools the provider may run (web search) are held for too, so a funded call's tool charge is never a shortfall.
  const tools = toolHold(ctx, call, call.model, price);
  const plan = withToolHold(planFor(price, estimate, call, settings, ceiling), tools);
  const first = await reserveQuota(ctx, auth, plan.amount, plan.minimum);
  if (first.hold.amount >= plan.amount) return { ...first, plan };
  const exact = exactPlan(ctx, call, call.model, price, estimate, settings, tools);
  if (first.hold.amount >= exact.minimum) return { ...first, plan: exact };
  // The balance held the estimate's cost but not the prompt's: given back, and asked again for what the call needs.
  await ctx.relay.ledger.settle(first.target, first.hold, 0);
  return { ...(await reserveQuota(ctx, auth, exact.amount, exact.minimum)), plan: exact };
}

/** The plan on the prompt counted (bodies up to EXACT_COUNT_MAX_BYTES; a larger one at its ceiling). */
function exactPlan(
  ctx: RelayContext,
  call: InboundCall,
  model: string,
  price: Price,
  estimate: number,
  settings: RelaySettings,
  tools: number,
): HoldPlan {
  const counted =
    call.bytes <= EXACT_COUNT_MAX_BYTES
      ? Math.max(estimate, countBodyTokens(call.body))
      : promptCeiling(call, estimate);
  return withToolHold(planFor(price, counted, call, settings, counted, model), tools);
}

/** What `held` (taken for `plan`) affords of the output, beyond the declared tools' quota. */
export function holdBudget(plan: HoldPlan, held: number, quotaPerUnit: number): OutputBudget {
  return budgetOf(
    plan.tools ? { ...plan, amount: plan.amount - plan.tools } : plan,
    Math.max(0, held - plan.tools),
    quotaPerUnit,
  );
}

/** A call's hold as a fallback model reads and changes it. */
export interface HeldCall {
  call: InboundCall;
  /** The prompt's estimate. */
  prompt: number;
  settings: RelaySettings;
  target: ReserveTarget;
  hold: Hold;
  budget: OutputBudget;
}

/**
 * The hold grown to what a call at `model` and `price` needs (as holdFor plans it), from the payer the call's hold
 * came from; true with `s.hold` and `s.budget` set for that price, false when the balance cannot hold its minimum
 * (what was added stays in the call's hold, given back with it).
 */
export async function holdForModel(ctx: RelayContext, s: HeldCall, model: string, price: Price): Promise<boolean> {
  const { call, settings } = s;
  const tools = toolHold(ctx, call, model, price);
  const plan = withToolHold(planFor(price, s.prompt, call, settings, promptCeiling(call, s.prompt), model), tools);
  if (s.hold.amount < plan.amount) {
    const more = await ctx.relay.ledger.reserve(s.target, plan.amount - s.hold.amount, 0);
    if (typeof more === 'object') {
      // One hold, so the charge later gives back and takes in one step (accounting/ledger.ts combineHolds).
      const { hold, others } = combineHolds([s.hold, more]);
      for (const h of others) await ctx.relay.ledger.settle(s.target, h, 0);
      s.hold = hold;
    }
  }
  const held = s.hold.amount;
  const fits = held >= plan.amount ? plan : exactPlan(ctx, call, model, price, s.prompt, settings, tools);
  if (held < fits.minimum) return false;
  s.budget = holdBudget(fits, held, settings.quotaPerUnit);
  return true;
}

/** The quota of the tool calls a request declares (0 without: no body scan beyond its `tools`). */
function toolHold(ctx: RelayContext, call: InboundCall, model: string, price: Price): number {
  if (call.surface) return 0;
  const declared = declaredToolCalls(call.body, model);
  return declared
    ? toolQuota(ctx.options, model, declared, price.groupRatio, ctx.relay.settings.get().quotaPerUnit)
    : 0;
}

/** A hold plan asking for the declared tools' quota on top (its minimum unchanged: tools may not run). */
function withToolHold(plan: HoldPlan, tools: number): HoldPlan {
  // planHold's fresh object, changed in place (no copy on the hot path).
  plan.amount += tools;
  plan.tools = tools;
  return plan;
}

/** planHold; a billing expression that fails for this call is refused before anything is held or sent. */
function planFor(
  price: Price,
  prompt: number,
  call: InboundCall,
  settings: RelaySettings,
  ceiling: number,
  model = call.model,
) {
  try {
    return planHold(price, prompt, call, settings.quotaPerUnit, settings.preConsumedQuota, ceiling);
  } catch (err) {
    if (err instanceof BillingExprError) throw relayErrors.priceExprFailed(model, err.message);
    throw err;
  }
}
