import { randomUUID } from 'node:crypto';
import { LogType, type LogEvent, type LogOther, type TaskFailReason } from '@tollway/shared';
import type { Insertable } from 'kysely';
import type { LogsTable } from '../../db/schema.js';
import { planOf, type Hold, type ReserveTarget } from '../../accounting/ledger.js';
import { periodLimitsOf } from '../../core/period-limits/service.js';
import type { PeriodTarget } from '../limits/period-ledger.js';
import { nowSeconds } from '../../lib/time.js';
import type { RelayContext } from '../pipeline/services.js';
import { observeTaskQuota } from '../../observability/relay-observer.js';
import { taskByUpstreamId, updateUnfinished, type TaskRow } from './store.js';
import { TASK_FAIL_TEXT, TaskStatus, type TaskPlatform, type TaskState } from './types.js';

/**
 * Applies an upstream state (a poll, a notify, a timeout) to an unfinished task. The status condition of the
 * UPDATE decides: of any number of concurrent updaters, the one that moves the task to FAILURE refunds it,
 * once. Returns true when the row changed.
 */
export async function applyTaskState(ctx: RelayContext, row: TaskRow, state: TaskState): Promise<boolean> {
  const changed = await updateUnfinished(ctx.db, row.table, row.id, state, nowSeconds());
  if (changed && state.status === TaskStatus.Failure && row.quota > 0)
    await refundTask(ctx, row, state.failReason ?? '');
  return changed;
}

/**
 * An upstream's notify: the task it names (of this platform) takes the state at once, through the same
 * update as a poll. False when no unfinished task has that id.
 */
export async function notifyTask(ctx: RelayContext, platform: TaskPlatform, state: TaskState): Promise<boolean> {
  const row = await taskByUpstreamId(
    ctx.db,
    platform.table,
    state.upstreamTaskId,
    platform.table === 'tasks' ? platform.name : undefined,
  );
  return row ? applyTaskState(ctx, row, state) : false;
}

/**
 * Gives a failed task's charge back through the ledger (a negative settlement: the balance rises at once) and
 * the durable writer (users', tokens' and the channel's counters, and a system log with the task id). The record
 * applies once per row and only after the charge.
 */
async function refundTask(ctx: RelayContext, row: TaskRow, reason: string): Promise<void> {
  const ledger = ctx.relay.ledger;
  const limited = await tokenLimited(ctx, row);
  const planId = planOfTask(row);
  let target = { userId: row.userId, tokenId: limited ? row.tokenId : undefined, planId };
  let hold = await ledger.reserve(target, 0);
  if (hold === 'token') {
    target = { userId: row.userId, tokenId: undefined, planId };
    hold = await ledger.reserve(target, 0);
  }
  const lease = hold === 'user' || hold === 'token' ? undefined : hold;
  if (lease) await ledger.settle(target, lease, -row.quota);
  const record = { ...refundRecord(ctx, row, target.tokenId !== undefined, reason), lease };
  const refundId = `refund:${row.table}:${row.id}:${randomUUID()}`;
  // Durable before this returns: the status already says refunded.
  await ctx.relay.writer.begin(refundId, { ...record, lease: undefined });
  ctx.relay.writer.enqueue(record, refundId);
  observeTaskQuota('refunded', row.quota);
  await giveBackToCounters(ctx, row);
}

/** Where a task's charge was counted, kept with the task for its refund: each period or budget counter's key, slot. */
const COUNTERS_KEY = 'period_counters';

/** The task's private data entry naming the counters its charge moved (none: no entry). */
export function chargedCounters(
  ctx: RelayContext,
  target: ReserveTarget,
  hold: Hold,
): { [COUNTERS_KEY]?: [string, number][] } {
  const counters = periodLimitsOf(ctx).chargedCounters((target as PeriodTarget).periods, hold.periodAt);
  return counters.length ? { [COUNTERS_KEY]: counters.map((c) => [c.key, c.slot]) } : {};
}

/**
 * The refund's share of the period limits and budgets the charge counted in: given back, so a failed task does not
 * use up a day's limit or a team's budget. (A refund sent again after a crash gives nothing back: counters are
 * conservative, never lower than what was spent.)
 */
async function giveBackToCounters(ctx: RelayContext, row: TaskRow): Promise<void> {
  const kept = row.privateData[COUNTERS_KEY];
  if (!Array.isArray(kept)) return;
  const counters = kept.flatMap((c: unknown) =>
    Array.isArray(c) && typeof c[0] === 'string' && Number.isSafeInteger(c[1])
      ? [{ key: c[0], slot: c[1] as number }]
      : [],
  );
  await periodLimitsOf(ctx)
    .giveBack(counters, row.quota)
    .catch((err: unknown) =>
      ctx.log.warn({ err, task: row.taskId }, 'task refund: the period counters kept their count'),
    );
}

/**
 * A refund a crash lost (the row failed, the refund never applied), sent again. Live balances are not raised
 * ahead of the database here (a copy of a refund still on its way would count twice): they are re-read once the
 * writer has committed it. A copy is dropped by the writer.
 */
export async function resendRefund(ctx: RelayContext, row: TaskRow, reason: string): Promise<void> {
  const limited = await tokenLimited(ctx, row);
  const record = refundRecord(ctx, row, limited, reason);
  const refundId = `refund:${row.table}:${row.id}:${randomUUID()}`;
  await ctx.relay.writer.begin(refundId, record);
  ctx.relay.writer.enqueue(record, refundId);
  await ctx.relay.writer.flush();
  await ctx.relay.ledger.refresh('users', row.userId);
  if (limited) await ctx.relay.ledger.refresh('tokens', row.tokenId);
}

/** A limited token gets its share back too; an unlimited or deleted one leaves the refund to the user alone. */
async function tokenLimited(ctx: RelayContext, row: TaskRow): Promise<boolean> {
  if (!row.tokenId) return false;
  const token = await ctx.db.kysely
    .selectFrom('tokens')
    .select('unlimited_quota')
    .where('id', '=', row.tokenId)
    .executeTakeFirst();
  return !!token && !token.unlimited_quota;
}

/** The subscription a task was charged to (its private data, tasks/service.ts); undefined: the wallet. */
function planOfTask(row: TaskRow): number | undefined {
  const id = row.privateData.planId;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

function refundRecord(ctx: RelayContext, row: TaskRow, limited: boolean, reason: string) {
  return {
    userId: row.userId,
    tokenId: row.tokenId,
    tokenLimited: limited,
    ...planOf({ planId: planOfTask(row) }),
    channelId: row.channelId,
    quota: -row.quota,
    countsRequest: false,
    log: ctx.relay.settings.get().logConsume ? refundLog(row, row.quota, reason) : undefined,
    once: { table: row.table, id: row.id, column: 'refund_batch' as const },
  };
}

const REASON_CODES = new Map(
  Object.entries(TASK_FAIL_TEXT).map(([code, text]) => [text as string, code as TaskFailReason]),
);

/** The refund's event: the gateway's reason as its code, an upstream's own as text (none given: 'failed'). */
function refundEvent(row: TaskRow, amount: number, reason: string): LogEvent {
  const base = { kind: 'task_refund', task_id: row.taskId, action: row.action, quota: amount } as const;
  const code = reason === '' ? 'failed' : REASON_CODES.get(reason);
  return code ? { ...base, reason_code: code } : { ...base, reason: reason.slice(0, 200) };
}

function refundLog(row: TaskRow, amount: number, reason: string): Insertable<LogsTable> {
  const p = row.privateData;
  return {
    user_id: row.userId,
    username: typeof p.username === 'string' ? p.username : '',
    token_name: typeof p.token_name === 'string' ? p.token_name : '',
    token_id: row.tokenId,
    model_name: row.modelName,
    is_stream: 0,
    group: row.group,
    ip: '',
    request_id: row.requestId,
    created_at: nowSeconds(),
    type: LogType.System,
    content: `task ${row.action} ${row.taskId} failed (${reason.slice(0, 200)}): ${amount} quota refunded`,
    quota: amount,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: 0,
    channel_id: row.channelId,
    channel_name: '',
    other: JSON.stringify({
      task_id: row.taskId,
      task_refund: amount,
      event: refundEvent(row, amount, reason),
    } satisfies LogOther),
  };
}
