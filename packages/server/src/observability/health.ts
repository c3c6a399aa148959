import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { Db } from '../db/connect.js';
import { countStorageError } from '../lib/metrics.js';

/** One dependency's check must answer within this; a hung database or Redis reads as down. */
const CHECK_TIMEOUT_MS = 2_000;
/** The writer is stuck when its oldest uncommitted record has waited longer than this. */
export const WRITER_MAX_LAG_MS = 30_000;
/** The writer is backlogged beyond this many uncommitted records. */
export const WRITER_MAX_BACKLOG = 100_000;

/** What the durable writer tells about itself (accounting/writer.ts `health()`). */
export interface WriterHealth {
  backlog: number;
  lagMs: number;
  failures: number;
}

/** The readiness probe's view of a running node: its stores and, once built, the relay's writer. */
export type ReadinessContext = Pick<AppContext, 'db' | 'logDb' | 'redis'> & {
  relay?: { writer: { health(): WriterHealth } };
};

export type CheckState = 'ok' | 'down' | 'skipped';

export interface Readiness {
  ready: boolean;
  /** One word per dependency; never an address, a message or a number an outsider could use. */
  checks: { database: CheckState; redis: CheckState; writer: CheckState };
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A failed check counts as a storage error too. */
function counted<T>(p: Promise<T>, store: 'database' | 'redis'): Promise<T> {
  return p.catch((err: unknown) => {
    countStorageError(store, 'ping');
    throw err;
  });
}

async function pingDb(db: Db): Promise<void> {
  await counted(within(sql`select 1`.execute(db.kysely), CHECK_TIMEOUT_MS), 'database');
}

async function state(check: Promise<unknown> | undefined): Promise<CheckState> {
  if (!check) return 'skipped';
  return check.then(
    () => 'ok',
    () => 'down',
  );
}

/** Whether the writer commits: not stuck behind a failing database, not backlogged beyond bounds. */
export function writerHealthy(h: WriterHealth): boolean {
  return h.lagMs <= WRITER_MAX_LAG_MS && h.backlog <= WRITER_MAX_BACKLOG;
}

/** Checks the database (and the log database when separate), Redis when configured, and the writer. */
export async function checkReadiness(ctx: ReadinessContext): Promise<Readiness> {
  const dbs = ctx.logDb && ctx.logDb !== ctx.db ? [ctx.db, ctx.logDb] : [ctx.db];
  const [database, redis] = await Promise.all([
    state(Promise.all(dbs.map(pingDb))),
    state(ctx.redis ? counted(within(ctx.redis.ping(), CHECK_TIMEOUT_MS), 'redis') : undefined),
  ]);
  const writer: CheckState = !ctx.relay ? 'skipped' : writerHealthy(ctx.relay.writer.health()) ? 'ok' : 'down';
  return { ready: database !== 'down' && redis !== 'down' && writer !== 'down', checks: { database, redis, writer } };
}
