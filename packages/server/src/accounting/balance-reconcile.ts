import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { balanceMetrics } from './balance-metrics.js';
import type { ClusterPresence } from './balance-presence.js';
import { FIX, FIX_BUSY, FIX_DELETED, FIX_DONE, SNAPSHOT } from './balance-scripts.js';
import type { BalanceKind } from './ledger.js';

export type Loader = (ids: number[]) => Promise<Map<number, number>>;

/** Keys asked of each SCAN step (and so the most balances read from the database in one query). */
const SCAN_COUNT = 200;
/** A balance with a commit in progress is tried again this many times, waiting longer each time. */
const BUSY_RETRIES = 6;
const BUSY_RETRY_MS = 25;

/** Why a balance is reconciled: a periodic check, or a refresh after a database change (expected, so not logged). */
export type ReconcileMode = 'repair' | 'refresh';

export interface PassResult {
  checked: number;
  repaired: number;
  /** Absolute quota repaired. */
  drift: number;
  /** Balances left alone because commits kept them busy. */
  busy: number;
}

/** The letter of each kind in a balance key (bal:u:1, bal:t:1, bal:p:1). */
const KIND_CODES: Record<BalanceKind, string> = { users: 'u', tokens: 't', plans: 'p' };
const BALANCE_KINDS: readonly BalanceKind[] = ['users', 'tokens', 'plans'];

interface Balance {
  key: string;
  kind: BalanceKind;
  id: number;
}

/**
 * Recomputes Redis balances from the database: b = database value − what live nodes hold outstanding (their
 * reservations and uncommitted charges), dropping dead nodes' fields. The database is read between two
 * scripts; the second applies only if the balance's epoch and commit version are unchanged and no live node
 * has a commit in progress on it, so the value read always matches the outstanding amounts it is paired with.
 * Redis drift is reported as a repair (warning and metrics); a database change made outside the relay (an
 * admin edit) is only taken up.
 */
export class BalanceReconciler {
  private readonly pattern: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly loaders: Record<BalanceKind, Loader>,
    private readonly presence: ClusterPresence,
    private readonly balanceTtlMs: number,
    private readonly log: Logger,
  ) {
    this.pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}bal:*`;
  }

  key(kind: BalanceKind, id: number): string {
    return `${this.prefix}bal:${KIND_CODES[kind]}:${id}`;
  }

  private parse(key: string): Balance | undefined {
    const m = /^bal:([utp]):(\d+)$/.exec(key.slice(this.prefix.length));
    const kind = m && BALANCE_KINDS.find((k) => KIND_CODES[k] === m[1]);
    return m && kind ? { key, kind, id: Number(m[2]) } : undefined;
  }

  /** Every balance in Redis once; `keepGoing` is asked between steps (false ends the pass early). */
  async pass(keepGoing: () => Promise<boolean>): Promise<PassResult> {
    const total: PassResult = { checked: 0, repaired: 0, drift: 0, busy: 0 };
    const retry: Balance[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', this.pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      const balances = keys.flatMap((k) => this.parse(k) ?? []);
      if (balances.length) {
        const r = await this.reconcile(balances, 'repair');
        total.checked += balances.length;
        total.repaired += r.repaired;
        total.drift += r.drift;
        retry.push(...r.busy);
      }
      if (cursor !== '0' && !(await keepGoing())) return total;
    } while (cursor !== '0');
    const late = await this.untilIdle(retry, 'repair');
    total.repaired += late.repaired;
    total.drift += late.drift;
    total.busy = late.busy.length;
    balanceMetrics.passes.inc();
    this.log[total.repaired || total.busy ? 'info' : 'debug'](total, 'balance reconciliation pass');
    return total;
  }

  /** One balance now, waiting out commits in progress; false when it stayed busy. */
  async one(kind: BalanceKind, id: number, mode: ReconcileMode): Promise<boolean> {
    return (await this.untilIdle([{ key: this.key(kind, id), kind, id }], mode)).busy.length === 0;
  }

  /** Balances tried again in rounds (SCAN_COUNT at a time) while commits keep some busy; returns those left busy. */
  private async untilIdle(
    balances: Balance[],
    mode: ReconcileMode,
  ): Promise<{ repaired: number; drift: number; busy: Balance[] }> {
    const out = { repaired: 0, drift: 0, busy: balances };
    for (let attempt = 0; out.busy.length && attempt <= BUSY_RETRIES; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS * 2 ** (attempt - 1)));
      const still: Balance[] = [];
      for (let i = 0; i < out.busy.length; i += SCAN_COUNT) {
        const r = await this.reconcile(out.busy.slice(i, i + SCAN_COUNT), mode);
        out.repaired += r.repaired;
        out.drift += r.drift;
        still.push(...r.busy);
      }
      out.busy = still;
    }
    return out;
  }

  private async reconcile(
    balances: Balance[],
    mode: ReconcileMode,
  ): Promise<{ repaired: number; drift: number; busy: Balance[] }> {
    const nodeArgs = [this.presence.timing.nodeTtlMs, this.presence.node];
    const snap = (await SNAPSHOT.run(this.redis, [this.presence.nodes, ...balances.map((b) => b.key)], nodeArgs)) as (
      number | string
    )[];
    const busy: Balance[] = [];
    const ready: { b: Balance; g: string; v: string }[] = [];
    balances.forEach((b, i) => {
      const [exists, g, v, inCommit] = snap.slice(i * 4, i * 4 + 4);
      if (exists !== 1) return;
      if (inCommit === 1) busy.push(b);
      else ready.push({ b, g: String(g), v: String(v) });
    });
    const truth = await this.databaseValues(ready.map((r) => r.b));
    const args = ready.flatMap((r) => [r.g, r.v, truth.get(r.b.key) ?? '']);
    const fixed = ready.length
      ? ((await FIX.run(
          this.redis,
          [this.presence.nodes, ...ready.map((r) => r.b.key)],
          [...nodeArgs, this.balanceTtlMs, ...args],
        )) as (number | string)[])
      : [];
    let repaired = 0;
    let drift = 0;
    ready.forEach(({ b }, i) => {
      const [result, d, outside, before] = fixed.slice(i * 4, i * 4 + 4).map(Number) as [
        number,
        number,
        number,
        number,
      ];
      if (result === FIX_BUSY) busy.push(b);
      else if (result === FIX_DELETED)
        this.log.info({ kind: b.kind, id: b.id }, 'balance dropped from Redis: no longer in the database');
      else if (result === FIX_DONE) {
        if (outside !== 0)
          this.log[mode === 'refresh' ? 'debug' : 'info'](
            { kind: b.kind, id: b.id, change: outside },
            'balance took up a database change made outside the relay',
          );
        if (d !== 0) {
          repaired++;
          drift += Math.abs(d);
          this.report(b, d, before + d + outside);
        }
      }
    });
    return { repaired, drift, busy };
  }

  private report(b: Balance, drift: number, balance: number): void {
    const detail = { kind: b.kind, id: b.id, drift, balance };
    balanceMetrics.repairs.inc({ kind: b.kind });
    balanceMetrics.driftRepaired.inc({ kind: b.kind }, Math.abs(drift));
    this.log.warn(detail, 'balance repaired: Redis differed from the database and live leases');
  }

  /** Database values by key, one query per kind; a missing key means the row is gone. */
  private async databaseValues(balances: Balance[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const kind of BALANCE_KINDS) {
      const ids = balances.filter((b) => b.kind === kind).map((b) => b.id);
      if (!ids.length) continue;
      const values = await this.loaders[kind](ids);
      for (const [id, v] of values) out.set(this.key(kind, id), v);
    }
    return out;
  }
}
