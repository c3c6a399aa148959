import { computeQuota } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import {
  auditBilling,
  expectedCounters,
  readCounters,
  readRedisBalances,
  untilRedisAgrees,
  type BillingAudit,
  type Counters,
  type RedisBalances,
} from '../support/crash-audit.js';
import { ChatLoad, type CallOutcome } from '../support/crash-load.js';
import { openBackend, provision, startOn, type CrashBackend, type Pricing } from '../support/crash-server.js';
import { dialects } from '../support/databases.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { waitForStart, type ServerProcess } from '../support/process.js';
// Seeded, so a failing run's kill times can be replayed with CRASH_SEED.
import { seeded } from '../support/seeded-random.js';

/*
 * kill -9 under load, again and again on the same data: after the last restart every call a client received in
 * full is billed exactly once, a call cut by the crash is billed at most its reservation, the counters add up to
 * the log rows and (with Redis) the spendable balances equal the database's.
 */

const CRASH_POINTS = 5;
const WORKERS = 24;
/** The load must have delivered this many calls before the kill is armed (so calls are in flight). */
const DELIVERED_BEFORE_KILL = 30;
/** Then the kill comes after a random delay in this range, ms. */
const KILL_DELAY_MS = [0, 700] as const;
const LOAD_START_TIMEOUT_MS = 15_000;
/** After each restart: how long Redis may take to agree with the database, ms. */
const RECONCILE_TIMEOUT_MS = 10_000;
const POLL_MS = 50;
const USER_QUOTA = 20_000_000;
const TOKEN_QUOTA = 10_000_000;
const PRICING: Pricing = { model: 'crash-model', modelRatio: 2, completionRatio: 4 };
const CHANNEL_KEY = 'crash-upstream';
/** Upstream latency so calls overlap: before the answer, and between stream chunks. */
const UPSTREAM_DELAY_MS = 15;
const CHUNK_DELAY_MS = 10;
/** The prompt estimate counts at most one token per body byte plus a few per message (one message here). */
const PER_MESSAGE_TOKENS = 3;

/** Above any reservation the server can make for this call (prompt estimate ≤ body bytes). */
const reservationBound = (o: CallOutcome): number =>
  computeQuota(
    {
      mode: 'ratio',
      modelRatio: PRICING.modelRatio,
      completionRatio: PRICING.completionRatio,
      cacheRatio: 1,
      cacheCreationRatio: 1,
      groupRatio: 1,
    },
    { promptTokens: o.bytes + PER_MESSAGE_TOKENS, completionTokens: o.maxTokens },
    1,
  );

const NO_FAULTS: BillingAudit = {
  deliveredWithoutRequestId: 0,
  rowsShortOfDelivered: 0,
  deliveredNotBilled: 0,
  billedTwice: 0,
  rowsWithoutRequestId: 0,
  rowsOverReservation: 0,
  rowsOfUnseenCalls: 0,
  errorAnswersBilled: 0,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(dialects)('kill -9 under load (%s)', (dialect) => {
  let backend: CrashBackend | undefined;
  let mock: MockUpstream | undefined;
  let server: ServerProcess | undefined;
  let load: ChatLoad | undefined;
  afterAll(async () => {
    load?.halt();
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await load?.finished();
    await mock?.close();
    await backend?.drop();
  });

  it(`bills each delivered call once across ${CRASH_POINTS} crashes`, async () => {
    const seed = Number(process.env.CRASH_SEED) || Math.floor(Math.random() * 2 ** 31);
    const random = seeded(seed);
    backend = await openBackend(dialect);
    mock = await startMockUpstream({ record: false });
    mock.behaviors.set(CHANNEL_KEY, { delayMs: UPSTREAM_DELAY_MS, chunkDelayMs: CHUNK_DELAY_MS });

    const outcomes: CallOutcome[] = [];
    const cycles: string[] = [];
    /** With Redis, after each restart on a crash's data (no call live yet): Redis's balances and the database's. */
    const healed: { redis: RedisBalances; database: RedisBalances }[] = [];
    let setup: Awaited<ReturnType<typeof provision>> | undefined;
    let initial: Counters | undefined;
    for (let crash = 1; crash <= CRASH_POINTS; crash++) {
      const t0 = Date.now();
      const started = await startOn(backend);
      server = started.server;
      await waitForStart(server);
      const startMs = Date.now() - t0;
      if (!setup) {
        setup = await provision(started.base, backend.db, {
          upstream: mock.url,
          channelKey: CHANNEL_KEY,
          pricing: PRICING,
          userQuota: USER_QUOTA,
          tokenQuota: TOKEN_QUOTA,
        });
        initial = await readCounters(backend.db, setup.accounts);
      } else if (backend.redis) {
        // The crashed process's leases are written off by the restart's reconcile: spendable = database again.
        healed.push(
          await untilRedisAgrees(backend.redis, backend.db, setup.accounts, {
            timeoutMs: RECONCILE_TIMEOUT_MS,
            pollMs: POLL_MS,
          }),
        );
      }
      load = new ChatLoad({ base: started.base, model: PRICING.model, keys: setup.keys, workers: WORKERS });
      await load.untilDelivered(DELIVERED_BEFORE_KILL, LOAD_START_TIMEOUT_MS);
      const delay = Math.round(KILL_DELAY_MS[0] + random() * (KILL_DELAY_MS[1] - KILL_DELAY_MS[0]));
      await sleep(delay);
      load.halt();
      server.child.kill('SIGKILL');
      await server.exited;
      const got = await load.finished();
      outcomes.push(...got);
      cycles.push(
        `crash ${crash}: started in ${startMs} ms, cycle ${Date.now() - t0} ms, killed ${delay} ms after ${DELIVERED_BEFORE_KILL} deliveries, ${JSON.stringify(load.statuses())}, cut with an id ${got.filter((o) => o.kind === 'cut' && o.id).length}`,
      );
    }

    // The last start on the same data: recovery, then (with Redis) the balances reconciled; then a clean stop.
    const last = await startOn(backend);
    server = last.server;
    await waitForStart(server);
    const accounts = setup!.accounts;
    if (backend.redis)
      healed.push(
        await untilRedisAgrees(backend.redis, backend.db, accounts, {
          timeoutMs: RECONCILE_TIMEOUT_MS,
          pollMs: POLL_MS,
        }),
      );
    server.child.kill('SIGTERM');
    const code = await server.exited;
    const context = [
      `CRASH_SEED=${seed} (${dialect})`,
      ...cycles,
      `last start's output:\n${server.output().slice(-4000)}`,
    ].join('\n');
    expect(code, context).toBe(0);

    const { audit, billed } = await auditBilling(backend.db, accounts, outcomes, reservationBound);
    const delivered = outcomes.filter((o) => o.kind === 'delivered').length;
    expect(delivered, context).toBeGreaterThan(CRASH_POINTS * DELIVERED_BEFORE_KILL - 1);
    expect(
      audit,
      `${context}\ndelivered ${delivered}, billed rows ${billed.rows} (${billed.total} quota, ${billed.total - billed.byChannel} of it naming no channel)`,
    ).toEqual(NO_FAULTS);
    const counters = await readCounters(backend.db, accounts);
    expect(counters, context).toEqual(expectedCounters(initial!, billed));
    expect(counters.userQuota, context).toBeGreaterThanOrEqual(0);
    expect(counters.limitedRemain, context).toBeGreaterThanOrEqual(0);
    if (backend.redis) {
      // After every crash point's restart, before any call: Redis agreed with the database (nothing reserved).
      expect(healed, context).toHaveLength(CRASH_POINTS);
      expect(
        healed.map((h) => h.redis),
        context,
      ).toEqual(healed.map((h) => h.database));
      // No call is live after the stop: the spendable balance is the database's.
      const redis = await readRedisBalances(backend.redis.url, backend.redis.prefix, accounts);
      expect(redis, context).toEqual({ user: counters.userQuota, limitedToken: counters.limitedRemain });
    }
  }, 90_000);
});
