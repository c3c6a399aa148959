import { formatCost, quotaToUsd } from '@tollway/shared';
import type { CostReceipt, InboundCall, Receipt, RelayedAttempt } from '../pipeline/types.js';
import type { RelayContext } from '../pipeline/services.js';
import { countPromptTokens } from '../pipeline/token-count.js';
import { billCall, chargeOf, type CallBill, type CallRecord } from './settle.js';
import { usageObjectSpan, type CallUsage } from './usage.js';

/**
 * The cost receipt (docs/using/cost-receipts.md): a billed answer tells its caller what it cost, in headers and,
 * when asked (`"usage": {"include": true}`), in its usage. The receipt is the bill settlement charges: computed
 * once, by billCall, on the usage settlement reads (billedUsage), and kept for settlement.
 */

/** The quota charged, an integer. */
export const COST_QUOTA_HEADER = 'x-tollway-cost-quota';
/** The charge in the display currency: `<amount> <code>` (e.g. `0.000246 USD`). */
export const COST_HEADER = 'x-tollway-cost';

/**
 * The usage a relayed attempt is billed on: the upstream's when it reported it and the answer was whole; else our
 * own count of what was delivered (never less than the upstream's count), with the prompt as the upstream reported
 * it or as counted.
 */
export function billedUsage(result: RelayedAttempt, call: InboundCall): CallUsage {
  const u = result.usage;
  // Our count is made only where the usage is missing, cut short or says no output: it wins when it is more.
  if (u && !result.cut && result.countedCompletion <= u.completionTokens) return u;
  return {
    // A usage that names no prompt (an upstream that sent an empty one) is no count of it either.
    promptTokens: u?.promptTokens || u?.cachedTokens ? u.promptTokens : countPromptTokens(call.body),
    completionTokens: Math.max(u?.completionTokens ?? 0, result.countedCompletion),
    cachedTokens: u?.cachedTokens,
    cacheCreationTokens: u?.cacheCreationTokens,
    semantic: u?.semantic,
    units: u?.units,
    // Tools the provider ran (web search) ran whether or not the answer was whole.
    ...(u?.toolCalls ? { toolCalls: u.toolCalls } : {}),
    ...(u?.kinds ? { kinds: u.kinds } : {}),
    reported: false,
  };
}

/** A zero usage: what a per-call price's bill is computed on before the answer (its quota does not read tokens). */
const NO_TOKENS: CallUsage = { promptTokens: 0, completionTokens: 0, reported: false };

type Billed = Pick<CallRecord, 'price' | 'model' | 'upstreamModel' | 'group'>;

/** One attempt's receipt: made per attempt (the channel's mapped model may move the bill to its price). */
export class AttemptReceipt implements CostReceipt {
  /** The bill told to the caller, which settlement then charges (when the result says `receipted`). */
  issued: CallBill | undefined;
  /** The result the last bill was issued on, and the usage it read (settlement reads it again, not counts again). */
  issuedFor: RelayedAttempt | undefined;
  issuedUsage: CallUsage | undefined;

  constructor(
    private readonly ctx: RelayContext,
    private readonly call: InboundCall,
    private readonly billed: Billed,
    readonly inUsage: boolean,
    /** The call's hold: what settlement charges when the bill cannot be computed (chargeOf). */
    private readonly reserved: number,
  ) {}

  issue(result: RelayedAttempt): Receipt {
    const usage = billedUsage(result, this.call);
    this.issuedFor = result;
    this.issuedUsage = usage;
    return this.told(billCall(this.ctx, this.billedOn(usage)));
  }

  private billedOn(usage: CallUsage): Parameters<typeof billCall>[1] {
    const b = this.billed;
    return { price: b.price, model: b.model, upstreamModel: b.upstreamModel, group: b.group, usage };
  }

  upfront(): Receipt | undefined {
    // Only a chat call's answer never carries billable units of its own (a surface's answer may: images, minutes).
    if (this.call.surface) return undefined;
    // A token price (most streams) is not known before the answer: no bill computed to find that out, unless
    // redirect billing may move the call to another model's price.
    const b = this.billed;
    const redirected = b.upstreamModel !== b.model && this.ctx.relay.settings.get().redirectBilling;
    if (!redirected && b.price.price.mode !== 'price') return undefined;
    const bill = billCall(this.ctx, this.billedOn(NO_TOKENS));
    return bill.price.price.mode === 'price' ? this.told(bill) : undefined;
  }

  known(usage: CallUsage): Receipt {
    return this.told(billCall(this.ctx, this.billedOn(usage)));
  }

  private told(bill: CallBill): Receipt {
    this.issued = bill;
    return quotaReceipt(this.ctx, chargeOf(bill, this.reserved));
  }
}

/** The receipt of a charge already known (a task's, charged when the upstream accepted it). */
export function quotaReceipt(ctx: RelayContext, quota: number): Receipt {
  const settings = ctx.relay.settings.get();
  // Stored by key, not as computed keys of a literal (each of those is defined through the runtime, every call).
  const headers: Record<string, string> = {};
  headers[COST_QUOTA_HEADER] = String(quota);
  headers[COST_HEADER] = formatCost(quota, settings.quotaPerUnit, settings.costCurrency);
  return { quota, usd: quotaToUsd(quota, settings.quotaPerUnit), headers };
}

/** `usage.cost` (dollars) and `usage.cost_quota`, as JSON members. */
const costMembers = (r: Receipt): string => `"cost":${r.usd},"cost_quota":${r.quota}`;

/**
 * A JSON text (a whole answer, or one SSE event) with the receipt in its last `usage` object; a text with no usage
 * object gets one before its last `}`. Unchanged when it has neither.
 */
export function withUsageCost(text: string, r: Receipt): string {
  const span = usageObjectSpan(text);
  if (span) {
    const [open, close] = span;
    const empty = text.slice(open + 1, close).trim() === '';
    return `${text.slice(0, close)}${empty ? '' : ','}${costMembers(r)}${text.slice(close)}`;
  }
  const end = text.lastIndexOf('}');
  if (end < 0) return text;
  const empty = text.slice(text.indexOf('{') + 1, end).trim() === '';
  return `${text.slice(0, end)}${empty ? '' : ','}"usage":{${costMembers(r)}}${text.slice(end)}`;
}

/** Sets a receipt's headers on an answer's head. */
export function withReceiptHeaders(
  head: Record<string, string | number>,
  r: Receipt | undefined,
): Record<string, string | number> {
  return r ? Object.assign(head, r.headers) : head;
}
