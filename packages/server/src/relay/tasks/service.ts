import { channelTypeById, computeQuota, LogType, type LogOther } from '@tollway/shared';
import type { Insertable } from 'kysely';
import type { LogsTable } from '../../db/schema.js';
import { chooseKey, type CachedChannel } from '../../core/routing/channel-cache.js';
import { nowSeconds } from '../../lib/time.js';
import { admitModel, reserveQuota } from '../admit.js';
import type { Identified } from '../authenticate.js';
import { RelayError, relayErrors } from '../errors.js';
import type { RelayContext } from '../services.js';
import { newRequestId, unsettledCallRecord } from '../settle.js';
import { applyTaskState } from './refund.js';
import { insertTaskRow, taskById, type TaskRow } from './store.js';
import { TaskStatus, type TaskPlatform, type TaskRefused, type TaskSubmitResult, type TaskUpstream } from './types.js';

/** A submission as a task route hands it to the engine, after validating the caller's body. */
export interface TaskSubmission {
  platform: TaskPlatform;
  /** Upper-case action (IMAGINE, UPSCALE, MUSIC, generate, …). */
  action: string;
  /** The priced and routed name: mj_imagine, suno_music, a video model. */
  model: string;
  body: Record<string, unknown>;
  ip: string;
  /** Forces a channel (a Midjourney action on an earlier task goes to the channel that made it). */
  channelId?: number;
  /** Midjourney rows: the prompt as given and the mode (fast, relax, turbo). */
  prompt?: string;
  mode?: string;
  /** Stored in the row's properties (shown with the task). */
  properties?: Record<string, unknown>;
}

export type TaskSubmitOutcome = { ok: true; task: TaskRow; upstream: Extract<TaskSubmitResult, { ok: true }> } | TaskRefused;

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
 * with no fixed price is refused (model_price_not_set) unless unpriced models are allowed, which makes it free.
 */
async function admitTask(ctx: RelayContext, who: Identified, model: string): Promise<TaskPrice> {
  const { price } = await admitModel(ctx, who.auth, who.group, model);
  const groupRatio = price.groupRatio;
  if (price.price.mode === 'price') {
    return { quota: computeQuota(price.price, { promptTokens: 0, completionTokens: 0 }, ctx.relay.settings.get().quotaPerUnit), modelPrice: price.price.modelPrice, groupRatio };
  }
  if (price.unset) return { quota: 0, modelPrice: 0, groupRatio };
  throw relayErrors.unpriced(model);
}

interface TaskPrice {
  quota: number;
  modelPrice: number;
  groupRatio: number;
}

function pickChannel(ctx: RelayContext, who: Identified, s: TaskSubmission): CachedChannel {
  if (s.channelId !== undefined) {
    const ch = ctx.channelCache.get(s.channelId);
    if (!ch || !s.platform.channelTypes.includes(ch.type)) throw new RelayError(404, 'the channel of this task is no longer available', 'tollway_error', 'channel_not_found');
    return ch;
  }
  const ch = ctx.channelCache.select(who.group, s.model, new Set(), 0);
  if (!ch || !s.platform.channelTypes.includes(ch.type)) throw relayErrors.noChannel(who.group, s.model);
  return ch;
}

/**
 * Submits a task: priced, reserved from the caller's balance (the same ledger as chat calls), sent upstream;
 * charged with a consume log (task id in `other`) when the upstream accepts, released when it refuses.
 * Throws RelayError for the caller's own faults (unpriced, no quota, no channel) before anything is sent.
 */
export async function submitTask(ctx: RelayContext, who: Identified, s: TaskSubmission): Promise<TaskSubmitOutcome> {
  const { auth, group } = who;
  const price = await admitTask(ctx, who, s.model);
  const quota = price.quota;
  const ch = pickChannel(ctx, who, s);
  const keyIndex = chooseKey(ch);
  if (keyIndex === undefined) throw relayErrors.channelsUnavailable(group, s.model);
  const started = Date.now();
  const { target, hold } = await reserveQuota(ctx, auth, quota);
  const requestId = newRequestId();
  const identity = { requestId, auth, group, model: s.model, stream: false, ip: s.ip };
  let settled = false;
  try {
    // A crash from here on bills the task once, at its price (the settlement replaces it when it lands).
    await ctx.relay.writer.begin(requestId, unsettledCallRecord(ctx, { ...identity, started, target, reserved: quota }));
    const mapped = ch.modelMapping[s.model] ?? s.model;
    let result: TaskSubmitResult;
    try {
      result = await s.platform.submit({ ...upstreamOf(ch, keyIndex), action: s.action, model: mapped, body: s.body });
    } catch (err) {
      ctx.log.warn({ err, channel: ch.id, platform: s.platform.name }, 'task submit failed');
      result = { ok: false, httpStatus: UPSTREAM_FAILED, code: 'upstream_error', message: 'the upstream could not be reached' };
    }
    if (!result.ok) return result;
    const now = nowSeconds();
    // The row first: a task the database does not know is never charged.
    const id = await insertTaskRow(
      ctx.db,
      s.platform.table,
      {
        upstreamTaskId: result.upstreamTaskId,
        platform: s.platform.name,
        userId: auth.userId,
        tokenId: auth.tokenId,
        group,
        channelId: ch.id,
        quota,
        action: s.action,
        modelName: s.model,
        requestId,
        status: result.status ?? TaskStatus.Submitted,
        submitTime: now,
        properties: { ...s.properties, ...result.properties },
        privateData: { ...result.privateData, key_index: keyIndex, username: auth.username, token_name: auth.name },
        mj: { code: result.code ?? 1, prompt: s.prompt ?? '', description: result.description ?? '', mode: s.mode ?? '' },
      },
      now,
    );
    // The reservation holds the whole price, so the charge is the price.
    const charged = await ctx.relay.ledger.settle(target, hold, quota);
    settled = true;
    const log = ctx.relay.settings.get().logConsume ? consumeLog(identity, ch, charged, started, price, result.upstreamTaskId, s.action) : undefined;
    ctx.relay.writer.enqueue(
      { userId: auth.userId, tokenId: auth.tokenId, tokenLimited: target.tokenId !== undefined, channelId: ch.id, quota: charged, countsRequest: true, lease: hold, log },
      requestId,
    );
    return { ok: true, task: (await taskById(ctx.db, s.platform.table, id))!, upstream: result };
  } finally {
    // A reservation never outlives its submission: not charged means released.
    if (!settled) {
      await ctx.relay.ledger.settle(target, hold, 0);
      ctx.relay.writer.release(requestId);
    }
  }
}

function consumeLog(
  c: { requestId: string; auth: Identified['auth']; group: string; model: string; ip: string },
  ch: CachedChannel,
  quota: number,
  started: number,
  price: TaskPrice,
  taskId: string,
  action: string,
): Insertable<LogsTable> {
  return {
    user_id: c.auth.userId,
    username: c.auth.username,
    token_name: c.auth.name,
    token_id: c.auth.tokenId,
    model_name: c.model,
    is_stream: 0,
    group: c.group,
    ip: c.ip,
    request_id: c.requestId,
    created_at: nowSeconds(),
    type: LogType.Consume,
    content: `task ${action} ${taskId}`,
    quota,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: Math.max(0, Math.round((Date.now() - started) / 1000)),
    channel_id: ch.id,
    channel_name: ch.name,
    other: JSON.stringify({
      model_price: price.modelPrice,
      group_ratio: price.groupRatio,
      task_id: taskId,
      task_action: action,
      admin_info: { use_channel: [ch.id] },
    } satisfies LogOther),
  };
}

export { applyTaskState };
