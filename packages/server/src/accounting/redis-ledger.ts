import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { CommitFence } from './balance-commits.js';
import { ClusterPresence } from './balance-presence.js';
import { BalanceReconciler, type Loader } from './balance-reconcile.js';
import { LOAD, RESERVE, RESERVE_EACH, SETTLE, SETTLE_EACH } from './balance-scripts.js';
import { ScriptBatch } from './script-batch.js';
import { payerOf, type BalanceKind, type Hold, type Ledger, type LedgerRecord, type ReserveTarget } from './ledger.js';

export const DEFAULT_RECONCILE_INTERVAL_MS = 30_000;
const DEFAULT_HEARTBEAT_MS = 5_000;
const DEFAULT_NODE_TTL_MS = 30_000;
/** A balance lives at least this long without a successful reconciliation… */
const MIN_BALANCE_TTL_MS = 10 * 60_000;
/** …and at least this many reconciliation intervals. */
const BALANCE_TTL_INTERVALS = 4;
/** The leader's lock outlives this many intervals, so a live leader always renews it in time. */
const LEADER_LOCK_INTERVALS = 2;
/** The heartbeat comes at least this many times within the node ttl. */
const BEATS_PER_TTL = 2;
const EPOCH_BYTES = 6;
const RESERVE_ATTEMPTS = 3;
/** How long a stop waits for commit releases still to be written to Redis. */
const STOP_RELEASE_MS = 5_000;

export interface RedisLedgerOptions {
  log?: Logger;
  /** Milliseconds between reconciliation passes (by the leader). */
  reconcileIntervalMs?: number;
  heartbeatMs?: number;
  /** A node silent this long is dead and what it held is written off. */
  nodeTtlMs?: number;
  /** Lifetime of a balance key; only a successful reconciliation renews it. */
  balanceTtlMs?: number;
  /** File keeping this node's id (DATA_DIR/redis-node-id): a restart retires the id of the process it replaces. */
  nodeIdFile?: string;
  /** Subscription plans' balances from the database (absent: the ledger knows no plans). */
  loadPlans?: Loader;
}

const noPlans: Loader = () => Promise.resolve(new Map());

/**
 * Balances shared by every node in Redis (see balance-scripts.ts for the hash). Each reservation is a lease
 * booked to the node holding it; the node's commits release its charges. The leader node reconciles every
 * balance on start and periodically with the database and the live nodes' leases (balance-reconcile.ts), so
 * drift left by a crash, a lost write or a Redis restart heals itself. A balance key expires unless a
 * reconciliation found it correct recently; a missing key is rebuilt from the database on its next use.
 */
export class RedisLedger implements Ledger {
  readonly presence: ClusterPresence;
  readonly reconciler: BalanceReconciler;
  private readonly fence: CommitFence;
  /** Reservations and settlements of one turn of the event loop go to Redis together. */
  private readonly reserves: ScriptBatch;
  private readonly settles: ScriptBatch;
  private readonly log: Logger;
  private readonly intervalMs: number;
  private readonly balanceTtlMs: number;
  private readonly loaders: Record<BalanceKind, Loader>;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private started = false;
  private stopped = false;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    loadUsers: Loader,
    loadTokens: Loader,
    opts: RedisLedgerOptions = {},
  ) {
    this.log = opts.log ?? pino({ enabled: false });
    this.intervalMs = opts.reconcileIntervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS;
    const heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    const nodeTtlMs = opts.nodeTtlMs ?? DEFAULT_NODE_TTL_MS;
    this.balanceTtlMs = opts.balanceTtlMs ?? Math.max(MIN_BALANCE_TTL_MS, BALANCE_TTL_INTERVALS * this.intervalMs);
    if (!(this.intervalMs > 0)) throw new Error('RedisLedger: the reconciliation interval must be positive');
    if (!(heartbeatMs > 0 && heartbeatMs * BEATS_PER_TTL <= nodeTtlMs))
      throw new Error(`RedisLedger: the node ttl must be at least ${BEATS_PER_TTL} heartbeats`);
    if (!(this.balanceTtlMs > this.intervalMs))
      throw new Error('RedisLedger: the balance ttl must exceed the reconciliation interval');
    this.presence = new ClusterPresence(
      redis,
      prefix,
      { heartbeatMs, nodeTtlMs, leaseMs: LEADER_LOCK_INTERVALS * this.intervalMs },
      this.log,
      opts.nodeIdFile,
    );
    this.loaders = { users: loadUsers, tokens: loadTokens, plans: opts.loadPlans ?? noPlans };
    this.reconciler = new BalanceReconciler(redis, prefix, this.loaders, this.presence, this.balanceTtlMs, this.log);
    this.fence = new CommitFence(redis, (kind, id) => this.reconciler.key(kind, id), this.presence, this.log);
    this.reserves = new ScriptBatch(redis, RESERVE, RESERVE_EACH);
    this.settles = new ScriptBatch(redis, SETTLE, SETTLE_EACH);
  }

  /** Joins the cluster and reconciles now (when leading) and every interval; once the writer replayed its journal. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.presence.start();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  /** Stops reconciling, writes waiting commit releases and leaves the cluster. Call after the writer stopped. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    await this.round;
    await this.fence.settle(STOP_RELEASE_MS);
    this.fence.stop();
    await this.presence
      .stop()
      .catch((err) =>
        this.log.warn({ err }, 'cluster: could not leave; the others give this node up once its heartbeat is old'),
      );
  }

  /** One reconciliation pass if this node leads (shared by concurrent callers). */
  tick(): Promise<void> {
    this.round ??= this.leadAndReconcile().finally(() => (this.round = undefined));
    return this.round;
  }

  private async leadAndReconcile(): Promise<void> {
    try {
      if (this.stopped || !(await this.presence.lead())) return;
      await this.reconciler.pass(async () => !this.stopped && (await this.presence.lead()));
    } catch (err) {
      this.log.warn({ err }, 'balance reconciliation failed; the next interval tries again');
    }
  }

  private keys(t: ReserveTarget): string[] {
    return [
      t.planId ? this.reconciler.key('plans', t.planId) : this.reconciler.key('users', t.userId),
      ...(t.tokenId === undefined ? [] : [this.reconciler.key('tokens', t.tokenId)]),
    ];
  }

  /** Builds a balance from the database unless Redis has it; false when the id is unknown. */
  private async load(kind: BalanceKind, id: number): Promise<boolean> {
    const v = (await this.loaders[kind]([id])).get(id);
    if (v === undefined) return false;
    await LOAD.run(
      this.redis,
      [this.reconciler.key(kind, id)],
      [v, crypto.randomBytes(EPOCH_BYTES).toString('hex'), this.balanceTtlMs],
    );
    return true;
  }

  async reserve(t: ReserveTarget, amount: number, minimum = amount): Promise<Hold | 'user' | 'token'> {
    const keys = this.keys(t);
    for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt++) {
      const node = this.presence.node;
      const [code, gu, gt, taken] = (await this.reserves.run(
        keys,
        minimum === amount ? [amount, node] : [amount, node, minimum],
      )) as [number, string, string, string];
      if (code === 1) return { amount: Number(taken), gens: [gu, gt], node };
      if (code === -1) return 'user';
      if (code === -2) return 'token';
      // -11: the payer's balance (wallet or plan) is not in Redis, -12: the token's.
      const missingPayer = code === -11;
      const payer = payerOf(t);
      if (!(await (missingPayer ? this.load(payer.kind, payer.id) : this.load('tokens', t.tokenId!))))
        return missingPayer ? 'user' : 'token';
    }
    return 'user';
  }

  /** After the settle the hold names where the charge is booked (node and epochs), for the commit to release it. */
  async settle(t: ReserveTarget, hold: Hold, actual: number): Promise<number> {
    const [gu, gt] = hold.gens ?? ['', ''];
    const node = this.presence.node;
    const [charge, cu, ct] = (await this.settles.run(this.keys(t), [
      hold.amount,
      actual,
      hold.node ?? '',
      node,
      String(gu),
      String(gt),
    ])) as [number, string, string];
    hold.node = node;
    hold.gens = [cu, ct];
    return Number(charge);
  }

  async available(kind: BalanceKind, id: number): Promise<number | undefined> {
    const key = this.reconciler.key(kind, id);
    let b = await this.redis.hget(key, 'b');
    if (b === null && (await this.load(kind, id))) b = await this.redis.hget(key, 'b');
    return b === null ? undefined : Number(b);
  }

  /** Takes up a database change now through a reconciliation of this balance (if Redis has it). */
  async refresh(kind: BalanceKind, id: number): Promise<void> {
    if (!(await this.reconciler.one(kind, id, 'refresh')))
      this.log.warn({ kind, id }, 'balance refresh kept busy by commits; the next reconciliation takes it up');
  }

  /** Resolves once the commit releases handed over so far are written to Redis. */
  whenReleased(): Promise<void> {
    return this.fence.drain();
  }

  beforeCommit(records: readonly LedgerRecord[]): Promise<void> {
    return this.fence.before(records);
  }

  committed(records: readonly LedgerRecord[]): void {
    this.fence.committed(records);
  }

  commitFailed(records: readonly LedgerRecord[]): void {
    this.fence.failed(records);
  }
}
