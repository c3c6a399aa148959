import type { IncomingHttpHeaders } from 'node:http';
import { tagCall } from '../entry/call-tags.js';
import { channelTypeById, computeQuota, LogType, UNSET_TASK_PRICE, type LogOther } from '@tollway/shared';
import type { Insertable } from 'kysely';
import type { LogsTable } from '../../db/schema.js';
import { channelModel, chooseKey, type CachedChannel } from '../../core/routing/channel-cache.js';
import { nowSeconds } from '../../lib/time.js';
import { planOf, type Hold, type ReserveTarget } from '../../accounting/ledger.js';
import { admitModel, reserveQuota, type ChannelChoice } from '../pipeline/admit.js';
import { refundHold, SERVED, tryChannels, type AttemptsState, type ChannelAttempts } from '../pipeline/lifecycle.js';
import { callLogRow, useTimeSince } from '../billing/log-row.js';
import type { Identified } from '../entry/authenticate.js';
import { RelayError, relayErrors } from '../pipeline/errors.js';
import type { RelayContext } from '../pipeline/services.js';
import { observeTaskQuota } from '../../observability/relay-observer.js';
import { newRequestId } from '../billing/settle.js';
import { servedGroup } from '../pipeline/auto-group.js';
import { applyTaskState, chargedCounters } from './refund.js';
import { acceptTask, deletePendingTask, insertPendingTask, taskById, type TaskRow } from './store.js';
import {
  TaskStatus,
  type TaskAccepted,
  type TaskPlatform,
  type TaskRefused,
  type TaskSubmitResult,
  type TaskUpstream,
} from './types.js';

/** A submission as a task route hands it to the engine, after validating the caller's body. */
export interface TaskSubmission {
  platform: TaskPlatform;
  /** Upper-case action (IMAGINE, UPSCALE, MUSIC, generate, …). */
  action: string;
  /** The priced and routed name: mj_imagine, suno_music, a video model. */
  model: string;
  body: Record<string, unknown>;
  ip: string;
  /** The request's headers: its spend tags (x-tollway-tags; the body's metadata.tags too). */
  headers?: IncomingHttpHeaders;
  /** Forces a channel (an action on an earlier task goes to the channel that made it). */
  channelId?: number;
  /** With a forced channel: the key the earlier task used (its upstream account), when still there. */
  keyIndex?: number;
  /** Midjourney rows: the prompt as given and the mode (fast, relax, turbo). */
  prompt?: string;
  mode?: string;
  /** Stored in the row's properties (shown with the task). */
  properties?: Record<string, unknown>;
}

export type TaskSubmitOutcome =
  { ok: true; task: TaskRow; upstream: Extract<TaskSubmitResult, { ok: true }> } | TaskRefused;

/** Status for an upstream that could not be reached or answered with nonsense. */
const UPSTREAM_FAILED = 502;

/** The channel's base URL without a trailing slash, or its type's default. */
export function channelBaseUrl(ch: CachedChannel): string {
  return (ch.baseUrl || channelTypeById.get(ch.type)?.baseUrl || '').replace(/\/+$/, '');
}

/** What a channel's poll or a submit goes to: the channel, a key (the one the task used when known), the base URL. */
export function upstreamOf(ch: CachedChannel, keyIndex: number | undefined): TaskUpstream {
  const i = keyIndex !== undefined && keyIndex < ch.keys.length ? keyIndex : 0;
  return { channel: ch, key: ch.keys[i] ?? '', baseUrl: channelBaseUrl(ch) };
}

/**
 * The per-task price in quota: the model's fixed price (ModelPrice) × the group ratio × QuotaPerUnit. A model
 * with no fixed price is refused (model_price_not_set) unless unpriced models are allowed: then UNSET_TASK_PRICE.
 */
async function admitTask(ctx: RelayContext, who: Identified, model: string): Promise<TaskPrice> {
  const { price } = await admitModel(ctx, who.auth, who.group, model);
  const groupRatio = price.groupRatio;
  if (price.price.mode === 'price') {
    return {
      quota: computeQuota(price.price, { promptTokens: 0, completionTokens: 0 }, ctx.relay.settings.get().quotaPerUnit),
      modelPrice: price.price.modelPrice,
      groupRatio,
    };
  }
  // Issue 31 hole 6: an unpriced task model is never free; new-api's per-call price for an unset ratio.
  if (price.unset) {
    const unsetPrice = { mode: 'price' as const, modelPrice: UNSET_TASK_PRICE, groupRatio };
    return {
      quota: computeQuota(unsetPrice, { promptTokens: 0, completionTokens: 0 }, ctx.relay.settings.get().quotaPerUnit),
      modelPrice: UNSET_TASK_PRICE,
      groupRatio,
    };
  }
  throw relayErrors.unpriced(model);
}

interface TaskPrice {
  quota: number;
  modelPrice: number;
  groupRatio: number;
}

/** A forced channel (an action on an earlier task goes to the channel that made it); 404 when it is gone. */
function forcedChannel(ctx: RelayContext, s: TaskSubmission, channelId: number): CachedChannel {
  const ch = ctx.channelCache.get(channelId);
  if (!ch || !s.platform.channelTypes.includes(ch.type))
    throw new RelayError(404, 'the channel of this task is no longer available', 'tollway_error', 'channel_not_found');
  return ch;
}

/** The next channel of the platform's types serving the model in the group, none of `tried`. */
function nextTaskChannel(
  ctx: RelayContext,
  group: string,
  s: TaskSubmission,
  tried: Set<number>,
  attempt: number,
): CachedChannel | undefined {
  for (;;) {
    const ch = ctx.channelCache.select(group, s.model, tried, attempt);
    if (!ch || s.platform.channelTypes.includes(ch.type)) return ch;
    tried.add(ch.id);
  }
}

/** One channel's answer to the submission; an unreachable upstream is a 502 refusal (worth another channel). */
async function submitTo(ctx: RelayContext, s: TaskSubmission, choice: ChannelChoice): Promise<TaskSubmitResult> {
  const { ch, keyIndex, mapped: model } = choice;
  // The channel's model mapping (chained) and prefix, as for every relay call.
  if ('error' in model) {
    ctx.log.warn(
      { channel: ch.id, platform: s.platform.name, reason: model.error },
      'task submit: the channel cannot name the model',
    );
    return {
      ok: false,
      httpStatus: UPSTREAM_FAILED,
      code: 'upstream_error',
      message: 'the channel cannot serve this model',
    };
  }
  try {
    return await s.platform.submit({
      ...upstreamOf(ch, keyIndex),
      action: s.action,
      model: model.upstream,
      body: s.body,
    });
  } catch (err) {
    ctx.log.warn({ err, channel: ch.id, platform: s.platform.name }, 'task submit failed');
    return {
      ok: false,
      httpStatus: UPSTREAM_FAILED,
      code: 'upstream_error',
      message: 'the upstream could not be reached',
    };
  }
}

/**
 * Submits a task: priced and reserved from the caller's balance (the same ledger as chat calls), its row written
 * (NOT_START, no upstream id), sent upstream — to another channel when one fails and retries are on. Accepted:
 * the charge is durable (journal) before the caller hears of the task, then the row takes the upstream id. Refused
 * everywhere: the row goes and the reservation is released. A crash before the charge is durable charges nothing;
 * the poller ends such a row; after it, the charge stands and a failure is refunded (each applies once per row).
 * Throws RelayError for the caller's own faults (unpriced, no quota, no channel) before anything is sent.
 */
export async function submitTask(ctx: RelayContext, caller: Identified, s: TaskSubmission): Promise<TaskSubmitOutcome> {
  // An `auto` token's task runs in the first auto group serving its model (auto-group.ts).
  const who = {
    ...caller,
    auth: tagCall(caller.auth, s.headers ?? {}, s.body),
    group: servedGroup(ctx, caller.auth, caller.group, s.model),
  };
  const { auth, group } = who;
  const price = await admitTask(ctx, who, s.model);
  const quota = price.quota;
  const tried = new Set<number>();
  const first =
    s.channelId !== undefined ? forcedChannel(ctx, s, s.channelId) : nextTaskChannel(ctx, group, s, tried, 0);
  if (!first) throw relayErrors.noChannel(group, s.model);
  const started = Date.now();
  const { target, hold } = await reserveQuota(ctx, auth, quota);
  const requestId = newRequestId();
  const table = s.platform.table;
  // The plan the task draws from, for its refund to find (refund.ts).
  const privateData = { username: auth.username, token_name: auth.name, ...planOf(target) };
  const t: TaskCall = {
    who,
    s,
    price,
    target,
    hold,
    requestId,
    started,
    privateData,
    first,
    rowId: 0,
    publicId: '',
    charged: false,
    outcome: undefined,
    tried,
    usedChannels: [],
    last: {
      ok: false,
      httpStatus: 503,
      code: 'channels_unavailable',
      message: relayErrors.channelsUnavailable(group, s.model).message,
    },
  };
  let rowId: number | undefined;
  try {
    const row = {
      platform: s.platform.name,
      userId: auth.userId,
      tokenId: auth.tokenId,
      group,
      channelId: first.id,
      quota,
      action: s.action,
      modelName: s.model,
      requestId,
    };
    const now = nowSeconds();
    const pending = await insertPendingTask(
      ctx.db,
      table,
      {
        ...row,
        submitTime: now,
        properties: s.properties ?? {},
        privateData,
        mj: { prompt: s.prompt ?? '', mode: s.mode ?? '' },
      },
      now,
    );
    rowId = t.rowId = pending.id;
    t.publicId = pending.taskId;
    if (await tryChannels(ctx, TASK_ATTEMPTS, t, ctx.relay.settings.get().retry)) return t.outcome!;
    return t.last!;
  } finally {
    // A reservation never outlives its submission: not charged means released, and the row goes.
    if (!t.charged) {
      await refundHold(ctx, target, hold, undefined);
      if (rowId !== undefined)
        await deletePendingTask(ctx.db, table, rowId).catch((err: unknown) =>
          ctx.log.warn({ err }, 'task: removing a refused row failed'),
        );
    }
  }
}

/** A submission held for and written as a pending row, on its way to a channel that accepts it. */
interface TaskCall extends AttemptsState<TaskRefused> {
  who: Identified;
  s: TaskSubmission;
  price: TaskPrice;
  target: ReserveTarget;
  hold: Hold;
  requestId: string;
  started: number;
  privateData: { username: string; token_name: string };
  /** The channel chosen before the hold (none: the caller's fault, refused before anything is held). */
  first: CachedChannel;
  rowId: number;
  /** The task's own id, as the caller will know it (empty for platforms that show the upstream's). */
  publicId: string;
  /** The hold became the charge: from here a failure is the poller's refund, not a release. */
  charged: boolean;
  outcome: TaskSubmitOutcome | undefined;
}

/**
 * The task surface's part of the channel loop: the first channel was chosen before the hold; a forced channel
 * (an action on an earlier task) is the only one tried. An accepted submission is charged at once.
 */
const TASK_ATTEMPTS: ChannelAttempts<TaskCall> = {
  stopped: () => false,
  next(ctx, t, attempt) {
    const { s } = t;
    const ch =
      attempt === 0
        ? t.first
        : s.channelId !== undefined
          ? undefined
          : nextTaskChannel(ctx, t.who.group, s, t.tried, attempt);
    if (!ch) return undefined;
    t.tried.add(ch.id);
    const keyIndex =
      s.channelId !== undefined && s.keyIndex !== undefined && s.keyIndex < ch.keys.length ? s.keyIndex : chooseKey(ch);
    return { ch, keyIndex, mapped: channelModel(ch, s.model) };
  },
  async attempt(ctx, t, choice) {
    // No usable key: the call's last refusal stands for this channel too.
    if (choice.keyIndex === undefined) return t.last!.httpStatus;
    const result = await submitTo(ctx, t.s, choice);
    if (!result.ok) {
      t.last = result;
      return result.httpStatus;
    }
    t.outcome = await chargeTask(ctx, t, choice, result);
    return SERVED;
  },
};

/**
 * A task's settlement, deferred to its acceptance: the hold becomes the charge, durable (journal) before the caller
 * or the row knows the task; the row then takes the upstream id. A later failure is refunded by the poller.
 */
async function chargeTask(
  ctx: RelayContext,
  t: TaskCall,
  { ch, keyIndex }: ChannelChoice,
  result: TaskAccepted,
): Promise<TaskSubmitOutcome> {
  const { s, who, target, hold, requestId } = t;
  const table = s.platform.table;
  const amount = await ctx.relay.ledger.settle(target, hold, t.price.quota);
  t.charged = true;
  const record = {
    userId: who.auth.userId,
    tokenId: who.auth.tokenId,
    tokenLimited: target.tokenId !== undefined,
    ...planOf(target),
    channelId: ch.id,
    quota: amount,
    countsRequest: true,
    lease: hold,
    log: ctx.relay.settings.get().logConsume
      ? taskConsumeLog(t, ch, amount, t.publicId || result.upstreamTaskId)
      : undefined,
    once: { table, id: t.rowId, column: 'charge_batch' as const },
  };
  // The charge is on the disk before the caller (or the row) knows the task; the row then tracks it.
  await ctx.relay.writer.begin(requestId, { ...record, lease: undefined });
  ctx.relay.writer.enqueue(record, requestId);
  observeTaskQuota('charged', amount);
  const accepted = {
    upstreamTaskId: result.upstreamTaskId,
    status: result.status ?? TaskStatus.Submitted,
    channelId: ch.id,
    properties: { ...s.properties, ...result.properties },
    privateData: {
      ...result.privateData,
      ...t.privateData,
      key_index: keyIndex,
      ...chargedCounters(ctx, target, hold),
    },
    mj: { code: result.code ?? 1, description: result.description ?? '' },
  };
  // Only a row the poller already ended (after a very long submission) refuses it; its failure refunds the charge.
  if (!(await acceptTask(ctx.db, table, t.rowId, accepted, nowSeconds())))
    return {
      ok: false,
      httpStatus: UPSTREAM_FAILED,
      code: 'task_expired',
      message: 'the task was ended before the upstream accepted it',
    };
  return { ok: true, task: (await taskById(ctx.db, table, t.rowId))!, upstream: result };
}

/** The consume log of an accepted task: the call's row (billing/log-row.ts) at the task's fixed price. */
function taskConsumeLog(t: TaskCall, ch: CachedChannel, quota: number, taskId: string): Insertable<LogsTable> {
  const { auth, group } = t.who;
  const action = t.s.action;
  const identity = { requestId: t.requestId, auth, group, model: t.s.model, stream: false, ip: t.s.ip };
  return callLogRow(identity, {
    created_at: nowSeconds(),
    type: LogType.Consume,
    content: `task ${action} ${taskId}`,
    quota,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: useTimeSince(t.started),
    channel_id: ch.id,
    channel_name: ch.name,
    other: JSON.stringify({
      model_price: t.price.modelPrice,
      group_ratio: t.price.groupRatio,
      task_id: taskId,
      task_action: action,
      admin_info: { use_channel: [ch.id] },
      event: { kind: 'task_submit', task_id: taskId, action },
    } satisfies LogOther),
  });
}

export { applyTaskState };
