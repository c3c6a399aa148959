import type { Logger } from 'pino';
import { PeriodicJob } from '../../lib/periodic-job.js';
import type { RelayContext } from '../pipeline/services.js';
import { DatabaseLease, RedisLease, type ClusterLease } from './lease.js';
import { taskPlatformByName, taskPlatforms } from './platforms.js';
import { applyTaskState, resendRefund } from './refund.js';
import { upstreamOf } from './service.js';
import {
  staleSubmissions,
  timedOutState,
  unfinishedTasks,
  unrefundedFailures,
  updateUnfinished,
  type TaskRow,
} from './store.js';
import { TASK_FAIL_TEXT, TaskStatus, type TaskPlatform, type TaskTable } from './types.js';

/** Unfinished tasks read per table and pass. */
const MAX_TASKS_PER_PASS = 1000;
/** The lease outlives this many poll intervals, so a node that died is replaced after them. */
const LEASE_INTERVALS = 3;
const LEASE_NAME = 'task-poller';
const SECONDS_PER_MINUTE = 60;
const TABLES: TaskTable[] = ['midjourneys', 'tasks'];
/** A row still without an upstream id this long after its submission was cut by a crash (longer than any submit). */
const DEFAULT_SUBMIT_GRACE_SECONDS = 600;
/** A failed, charged row without its refund this long after it failed lost the refund to a crash: it is sent again. */
const DEFAULT_REFUND_RETRY_SECONDS = 60;

export interface TaskPassResult {
  /** False when another node holds the lease (nothing was done). */
  leader: boolean;
  /** Upstream task ids asked about. */
  polled: number;
  /** Rows changed. */
  updated: number;
  timedOut: number;
  /** Rows whose submission a crash cut, ended. */
  interrupted: number;
  /** Refunds sent again. */
  refundsResent: number;
}

/**
 * The task poller: every TASK_POLL_INTERVAL_MS, on the one node holding the lease, fails tasks older than
 * TASK_TIMEOUT_MINUTES (with a refund) and asks each channel's platform for its unfinished tasks in batches.
 * The task tables are the truth, so a restart picks up where the last pass left off.
 */
export class TaskPoller {
  readonly job: PeriodicJob<TaskPassResult>;
  readonly lease: ClusterLease;
  /** Minutes; 0 never times out. Tests change it. */
  timeoutMinutes: number;
  submitGraceSeconds = DEFAULT_SUBMIT_GRACE_SECONDS;
  refundRetrySeconds = DEFAULT_REFUND_RETRY_SECONDS;

  constructor(
    private readonly ctx: RelayContext,
    private readonly intervalMs: number,
    log: Logger,
  ) {
    this.timeoutMinutes = ctx.config.taskTimeoutMinutes;
    this.lease = ctx.redis
      ? new RedisLease(ctx.redis, ctx.config.redisKeyPrefix, LEASE_NAME)
      : new DatabaseLease(ctx.db, LEASE_NAME);
    this.job = new PeriodicJob('task poller', (now, stopped) => this.pass(now, stopped), log);
  }

  start(): void {
    this.job.start({ firstDelayMs: this.intervalMs, intervalMs: this.intervalMs });
  }

  async stop(): Promise<void> {
    await this.job.stop();
    await this.lease.release().catch(() => undefined);
  }

  /** One pass as of `now` (epoch seconds). */
  async pass(now: number, stopped: () => boolean = () => false): Promise<TaskPassResult> {
    const result: TaskPassResult = {
      leader: false,
      polled: 0,
      updated: 0,
      timedOut: 0,
      interrupted: 0,
      refundsResent: 0,
    };
    if (!(await this.lease.acquire(this.intervalMs * LEASE_INTERVALS))) return result;
    result.leader = true;
    await this.repair(now, result);
    if (this.timeoutMinutes > 0) {
      const cutoff = now - this.timeoutMinutes * SECONDS_PER_MINUTE;
      for (const table of TABLES) {
        for (const row of await unfinishedTasks(this.ctx.db, table, MAX_TASKS_PER_PASS, cutoff)) {
          if (await applyTaskState(this.ctx, row, timedOutState(row.upstreamTaskId))) result.timedOut++;
        }
      }
    }
    for (const table of TABLES) {
      const rows = await unfinishedTasks(this.ctx.db, table, MAX_TASKS_PER_PASS);
      for (const [key, group] of this.byChannel(rows)) {
        if (stopped()) return result;
        const [platform, channelId] = key;
        await this.pollChannel(platform, channelId, group, result);
      }
    }
    return result;
  }

  /**
   * What a crash left: rows whose submission never got an upstream id end as failures (refunded only if their
   * charge had landed), and failed rows whose refund never applied get it sent again (a copy is dropped).
   */
  private async repair(now: number, result: TaskPassResult): Promise<void> {
    for (const table of TABLES) {
      for (const row of await staleSubmissions(this.ctx.db, table, now - this.submitGraceSeconds, MAX_TASKS_PER_PASS)) {
        const state = { upstreamTaskId: '', status: TaskStatus.Failure, failReason: TASK_FAIL_TEXT.interrupted };
        // Charged (the crash came after the charge was on the disk): refunded; otherwise nothing to give back.
        const ended = row.charged
          ? await applyTaskState(this.ctx, row, state)
          : await updateUnfinished(this.ctx.db, table, row.id, state, now);
        if (ended) result.interrupted++;
      }
      for (const row of await unrefundedFailures(
        this.ctx.db,
        table,
        now - this.refundRetrySeconds,
        MAX_TASKS_PER_PASS,
      )) {
        await resendRefund(this.ctx, row, TASK_FAIL_TEXT.resent);
        result.refundsResent++;
      }
    }
  }

  /** Rows grouped by (platform, channel); rows whose channel or platform is gone wait for the timeout. */
  private byChannel(rows: TaskRow[]): Map<[TaskPlatform, number], TaskRow[]> {
    const groups = new Map<string, { key: [TaskPlatform, number]; rows: TaskRow[] }>();
    for (const row of rows) {
      const ch = this.ctx.channelCache.get(row.channelId);
      const platform =
        row.table === 'tasks'
          ? taskPlatformByName(row.platform)
          : taskPlatforms.find((p) => p.table === 'midjourneys' && (!ch || p.channelTypes.includes(ch.type)));
      if (!platform || !ch) continue;
      const id = `${platform.name}:${ch.id}`;
      const g = groups.get(id) ?? { key: [platform, ch.id] as [TaskPlatform, number], rows: [] };
      g.rows.push(row);
      groups.set(id, g);
    }
    return new Map([...groups.values()].map((g) => [g.key, g.rows]));
  }

  private async pollChannel(
    platform: TaskPlatform,
    channelId: number,
    rows: TaskRow[],
    result: TaskPassResult,
  ): Promise<void> {
    const ch = this.ctx.channelCache.get(channelId)!;
    const size = Math.max(1, platform.batchSize ?? 1);
    for (let i = 0; i < rows.length; i += size) {
      const batch = rows.slice(i, i + size);
      const byUpstream = new Map(batch.map((r) => [r.upstreamTaskId, r]));
      const keyIndex =
        typeof batch[0]!.privateData.key_index === 'number' ? batch[0]!.privateData.key_index : undefined;
      result.polled += batch.length;
      try {
        const states = await platform.fetchTasks(upstreamOf(ch, keyIndex), [...byUpstream.keys()]);
        for (const s of states) {
          const row = byUpstream.get(s.upstreamTaskId);
          if (row && (await applyTaskState(this.ctx, row, s))) result.updated++;
        }
      } catch (err) {
        this.ctx.log.warn({ err, channel: channelId, platform: platform.name }, 'task poll failed');
      }
    }
  }
}

/** Starts the poller of this node (every node runs one; the lease lets one of them work at a time). */
export function startTaskPoller(ctx: RelayContext): TaskPoller {
  const poller = new TaskPoller(ctx, ctx.config.taskPollIntervalMs, ctx.log);
  poller.start();
  return poller;
}
