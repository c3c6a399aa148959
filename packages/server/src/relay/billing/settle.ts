import crypto from 'node:crypto';
import {
  BILLING_MODE_EXPR,
  BillingExprError,
  computeQuota,
  exprQuota,
  LogType,
  type LogEvent,
  type LogOther,
  type Price,
} from '@tollway/shared';
import type { Insertable } from 'kysely';
import type { LogsTable } from '../../db/schema.js';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { callLogRow, useTimeSince, type CallIdentity } from './log-row.js';
import type { Hold, ReserveTarget } from '../../accounting/ledger.js';
import { NO_PAYER_FIELDS, payerLogFields } from './payers.js';
import { billedToolCalls, toolQuota } from './tool-price.js';
import { forRequest, requestOf, resolvePrice, scaledPrice, type ResolvedPrice } from './price.js';
import type { RelayContext } from '../pipeline/services.js';
import type { CallUsage } from './usage.js';
import { UPSTREAM_FAILED } from '../upstream/message.js';
import type { WriteRecord } from '../../accounting/writer-apply.js';
import { recordShortfall } from '../../accounting/charge-metrics.js';

/** Everything known about one relay call when it ends. */
export interface CallRecord {
  requestId: string;
  auth: TokenAuth;
  group: string;
  model: string;
  upstreamModel: string;
  stream: boolean;
  ip: string;
  started: number;
  firstByteMs: number;
  /** The channel that served the call (a response cache hit: none, id 0). */
  channel: Pick<CachedChannel, 'id' | 'name'>;
  usedChannels: number[];
  price: ResolvedPrice;
  usage: CallUsage;
  target: ReserveTarget;
  hold: Hold;
  /** With LogChatContentEnabled: the prompt and answer text (capped); the answer is absent where none is kept (media). */
  content?: { input: string; output?: string };
  /** The call opened in the writer's journal (`writer.begin`) that this settlement closes. */
  callId?: string;
  /** The call moved to a fallback model (relay/pipeline/fallback.ts): the model asked for and why it moved. */
  fallback?: { from: string; reason: string } | undefined;
  /** Answered from the response cache (relay/cache): no upstream call, billed at the cache's share of the price. */
  cacheHit?: boolean;
  /** What the log's admin_info says beside the channels used (channel affinity's session). */
  adminInfo?: { channel_affinity?: Record<string, unknown> };
}

/** The header that names a relay call to its caller (the consume log's request_id), as new-api names it. */
export const REQUEST_ID_HEADER = 'x-oneapi-request-id';

const idPrefix = crypto.randomBytes(6).toString('hex');
let idSeq = 0;
/** Unique per process start (random prefix) and per call (sequence); no syscall per call. */
export const newRequestId = (): string => `${idPrefix}${(++idSeq).toString(36).padStart(8, '0')}`;

/** What a call is billed: the quota, at the price it was billed at (and the mapped model when redirect billing chose it). */
export interface CallBill {
  quota: number;
  price: ResolvedPrice;
  billedModel: string | undefined;
  /** The provider's tool calls the bill priced (with a search-preview model's implied search). */
  toolCalls?: Readonly<Record<string, number>>;
  /** The tier an expression price named (tier()). */
  tier?: string;
  /** Why the price expression failed for this call (it is charged its reservation). */
  failed?: string;
  /** The part of `quota` that prices the provider's tool calls. */
  toolQuota?: number;
}

/**
 * The quota of a usage at a price, and the tier an expression price named. An expression that fails for this
 * call's counts (it passed its save check on sample calls, and the call's hold on its ceiling) gives `failed`:
 * settlement then charges the call's whole reservation, never nothing.
 */
function quotaAt(p: Price, usage: CallUsage, quotaPerUnit: number): Omit<CallBill, 'price' | 'billedModel'> {
  const semantic = usage.semantic ?? 'openai';
  if (p.mode !== 'expr') return { quota: computeQuota(p, usage, quotaPerUnit, semantic) };
  try {
    return exprQuota(p, usage, quotaPerUnit, semantic);
  } catch (err) {
    if (!(err instanceof BillingExprError)) throw err;
    return { quota: 0, failed: err.message };
  }
}

/**
 * The bill of a call's usage: computeQuota at the call's price (redirect billing: at the mapped model's, when
 * priced). The one computation of a relay call's charge: settlement and the cost receipt (receipt.ts) both use it.
 */
export function billCall(
  ctx: RelayContext,
  c: Pick<CallRecord, 'price' | 'usage' | 'model' | 'upstreamModel' | 'group'>,
): CallBill {
  const settings = ctx.relay.settings.get();
  // Redirect billing: a call whose model was mapped to another is billed at the model actually used, when priced.
  let price = c.price;
  let billedModel: string | undefined;
  if (settings.redirectBilling && c.upstreamModel !== c.model) {
    const mapped = forRequest(resolvePrice(ctx.options, c.upstreamModel, c.group, false), requestOf(c.price));
    if (mapped && !mapped.unset) {
      price = mapped;
      billedModel = c.upstreamModel;
    }
  }
  const bill = quotaAt(scaledPrice(price.price, c.usage.units), c.usage, settings.quotaPerUnit);
  // Tools the provider ran (web search …) are priced per call on top (tool_price_setting.prices).
  const toolCalls = billedToolCalls(billedModel ?? c.model, c.usage.toolCalls);
  const tools = toolQuota(ctx.options, billedModel ?? c.model, toolCalls, price.groupRatio, settings.quotaPerUnit);
  // Set key by key (no spreads: each key after one is defined through the runtime, on every call).
  const out: CallBill = { quota: bill.quota + tools, price, billedModel };
  if (bill.tier !== undefined) out.tier = bill.tier;
  if (bill.failed !== undefined) out.failed = bill.failed;
  if (tools > 0) out.toolQuota = tools;
  if (toolCalls) out.toolCalls = toolCalls;
  return out;
}

/** What settlement charges for a bill (and its cost receipt shows): its quota, or the whole reservation when its price expression failed. */
export const chargeOf = (bill: CallBill, reserved: number): number =>
  bill.failed === undefined ? bill.quota : reserved;

/**
 * Stages 6–7 — settle and log: the exact quota from usage (or the bill already told to the caller, its cost
 * receipt), the reservation replaced by the charge in the ledger, and one record (counters + consume log) handed
 * to the durable writer. No I/O here.
 */
export async function settleCall(ctx: RelayContext, c: CallRecord, bill: CallBill = billCall(ctx, c)): Promise<number> {
  const settings = ctx.relay.settings.get();
  const { billedModel } = bill;
  const quota = chargeOf(bill, c.hold.amount);
  c.price = bill.price;
  const charged = await ctx.relay.ledger.settle(c.target, c.hold, quota);
  // Never a discount: a bill the balance could not cover is a bug, counted and logged (the log row keeps it too).
  if (charged < quota)
    recordShortfall(ctx.log, 'relay', { requestId: c.requestId, userId: c.auth.userId, quota, charged });
  const p = c.price.price;
  // Built in one shape with named stores, no spreads: a spread in a literal defines every later key through the
  // runtime (13 calls a settlement), and the keys keep the order the log's JSON always had.
  const ratio = p.mode === 'ratio';
  const other: LogOther = {
    model_ratio: ratio ? p.modelRatio : 0,
    model_price: p.mode === 'price' ? p.modelPrice : -1,
    completion_ratio: ratio ? p.completionRatio : 0,
    cache_ratio: ratio ? p.cacheRatio : 0,
    cache_tokens: c.usage.cachedTokens ?? 0,
    cache_creation_tokens: c.usage.cacheCreationTokens ?? 0,
    cache_creation_ratio: ratio ? p.cacheCreationRatio : 0,
    group_ratio: c.price.groupRatio,
    user_group_ratio: c.price.groupRatio,
    frt: c.firstByteMs,
    is_model_mapped: c.upstreamModel !== c.model,
    upstream_model_name: c.upstreamModel,
    usage_reported: c.usage.reported,
    ratio_unset: c.price.unset || undefined,
    fallback_pricing: c.price.fallback || undefined,
    billed_model: billedModel,
    tool_calls: bill.toolCalls,
    tool_quota: bill.toolQuota,
  };
  if (p.mode === 'expr') {
    other.billing_mode = BILLING_MODE_EXPR;
    other.expr_b64 = Buffer.from(p.expr.text).toString('base64');
    other.matched_tier = bill.tier;
    other.billing_expr_error = bill.failed;
  }
  other.billed_units = c.usage.units;
  other.fallback_from = c.fallback?.from;
  other.fallback_reason = c.fallback?.reason;
  other.charge_shortfall = charged < quota ? quota - charged : undefined;
  other.cache_hit = c.cacheHit || undefined;
  const payer = payerLogFields(c.auth, c.target, charged, c.hold.amount);
  if (payer !== NO_PAYER_FIELDS) Object.assign(other, payer);
  other.admin_info = c.adminInfo ? { use_channel: c.usedChannels, ...c.adminInfo } : { use_channel: c.usedChannels };
  other.input_content = c.content?.input;
  other.output_content = c.content?.output;
  const log: Insertable<LogsTable> | undefined = settings.logConsume
    ? callLogRow(c, {
        created_at: Math.floor(Date.now() / 1000),
        type: LogType.Consume,
        content: '',
        quota: charged,
        prompt_tokens: c.usage.promptTokens,
        completion_tokens: c.usage.completionTokens,
        use_time: useTimeSince(c.started),
        channel_id: c.channel.id,
        channel_name: c.channel.name,
        other: JSON.stringify(other),
      })
    : undefined;
  const record = chargeRecord(c, c.channel.id, charged, log);
  record.lease = c.hold;
  ctx.relay.writer.enqueue(record, c.callId, log !== undefined);
  return charged;
}

/**
 * What a call costs if it never settles (the process died first): its reservation, with a consume log (when
 * consume logs are on) that says so. Written to the journal when the call opens.
 */
export function unsettledCallRecord(
  ctx: RelayContext,
  c: CallIdentity & { started: number; target: ReserveTarget; reserved: number },
): WriteRecord {
  const log: Insertable<LogsTable> | undefined = ctx.relay.settings.get().logConsume
    ? callLogRow(c, {
        created_at: Math.floor(c.started / 1000),
        type: LogType.Consume,
        content: '',
        quota: c.reserved,
        prompt_tokens: 0,
        completion_tokens: 0,
        use_time: 0,
        channel_id: 0,
        channel_name: '',
        other: UNSETTLED_OTHER,
      })
    : undefined;
  return chargeRecord(c, 0, c.reserved, log);
}

/**
 * A call's write record (its charge, a request counted, its log row), keys in the order they always had: set one by
 * one rather than around a spread of the payer, which made the runtime define each later key.
 */
function chargeRecord(
  c: { auth: TokenAuth; target: ReserveTarget },
  channelId: number,
  quota: number,
  log: Insertable<LogsTable> | undefined,
): WriteRecord {
  const record: WriteRecord = {
    userId: c.auth.userId,
    tokenId: c.auth.tokenId,
    tokenLimited: c.target.tokenId !== undefined,
  } as WriteRecord;
  if (c.target.planId) record.planId = c.target.planId;
  record.channelId = channelId;
  record.quota = quota;
  record.countsRequest = true;
  record.log = log;
  return record;
}

const UNSETTLED_OTHER = JSON.stringify({ billed_at_reservation: true } satisfies LogOther);

/**
 * An error row's event, which the console words in the viewer's language: the gateway's own errors (the upstream
 * hidden or unreachable, no channel for the model), or an upstream's error, its text (the content) framed with its
 * status. The content stays the English fallback new-api clients read.
 */
function relayErrorEvent(e: {
  group: string;
  model: string;
  status: number;
  message: string;
  channel?: CachedChannel;
}): LogEvent {
  if (e.message === UPSTREAM_FAILED) return { kind: 'upstream_failed' };
  if (!e.channel) return { kind: 'no_channel', model: e.model, group: e.group };
  return { kind: 'upstream_error', status: e.status };
}

/** An error log (type 6) when LogErrorEnabled; counters do not move. */
export function logRelayError(
  ctx: RelayContext,
  e: CallIdentity & {
    started: number;
    status: number;
    /** What the caller was told; the row's content, which the user sees too. */
    message: string;
    /** The cause in full (upstream address, socket error), for administrators only; absent when it is `message`. */
    detail?: string;
    channel?: CachedChannel;
    usedChannels: number[];
  },
): void {
  if (!ctx.options.bool('LogErrorEnabled')) return;
  ctx.relay.writer.enqueue({
    userId: e.auth.userId,
    tokenId: e.auth.tokenId,
    tokenLimited: false,
    channelId: 0,
    quota: 0,
    countsRequest: false,
    log: callLogRow(e, {
      created_at: Math.floor(Date.now() / 1000),
      type: LogType.Error,
      content: e.message.slice(0, 2000),
      quota: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      use_time: useTimeSince(e.started),
      channel_id: e.channel?.id ?? 0,
      channel_name: e.channel?.name ?? '',
      other: JSON.stringify({
        status_code: e.status,
        error_type: 'upstream_error',
        channel_id: e.channel?.id ?? 0,
        channel_name: e.channel?.name ?? '',
        admin_info: {
          use_channel: e.usedChannels,
          ...(e.detail && e.detail !== e.message ? { error_detail: e.detail.slice(0, 2000) } : {}),
        },
        event: relayErrorEvent(e),
      } satisfies LogOther),
    }),
  });
}
