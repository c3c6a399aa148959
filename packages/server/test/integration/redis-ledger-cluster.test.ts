import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { balanceMetrics } from '../../src/accounting/balance-metrics.js';
import type { Hold, ReserveTarget } from '../../src/accounting/ledger.js';
import {
  capturingLog,
  charged,
  counter,
  outstanding,
  until,
  useLedgerWorld,
  type LogLine,
} from '../support/redis-ledger.js';

const QUOTA = 100_000;
/** A node silent for this long is dead (the production default is 30 s). */
const NODE_TTL_MS = 1_000;
const HEARTBEAT_MS = 200;

const passes = (lines: LogLine[]) => lines.filter((x) => x.msg === 'balance reconciliation pass').length;

describe('Redis ledger in a cluster: dead nodes, replayed commits, leadership', () => {
  const w = useLedgerWorld(QUOTA);
  let t: ReserveTarget;
  beforeEach(async () => {
    await w.reset();
    t = { userId: w.userId, tokenId: w.tokenId };
  });
  const b = async (kind: 'users' | 'tokens' = 'users') =>
    Number((await w.hash(kind, kind === 'users' ? w.userId : w.tokenId)).b);

  it('a restart on the same data folder retires the crashed process at once: its leases are written off by the first pass', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-node-id-'));
    const idFile = path.join(dir, 'redis-node-id');
    try {
      // Production timing: the crashed process would look live for 30 s.
      const crashed = w.ledger({ nodeIdFile: idFile, reconcileIntervalMs: 60_000 });
      await crashed.start();
      const held = (await crashed.reserve(t, 3000)) as Hold;
      await crashed.settle(t, (await crashed.reserve(t, 1000)) as Hold, 400);
      expect(held.amount).toBe(3000);
      expect(await b()).toBe(QUOTA - 3400);
      expect(fs.readFileSync(idFile, 'utf8').trim()).toBe(crashed.presence.node);
      // kill -9: no heartbeat stop, no leave, no commit.
      crashed.presence.halt();
      const restarted = w.ledger({ nodeIdFile: idFile, reconcileIntervalMs: 60_000 });
      await restarted.start();
      await restarted.tick();
      // The database did not take the 400 (the journal's replay would have, before the start): Redis equals it.
      expect(await b()).toBe(QUOTA);
      expect(await b('tokens')).toBe(QUOTA);
      expect(fs.readFileSync(idFile, 'utf8').trim()).toBe(restarted.presence.node);
      expect(restarted.presence.node).not.toBe(crashed.presence.node);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes off a crashed node's leases and uncommitted charges once it is dead, keeping the survivor's", async () => {
    const { log, lines } = capturingLog();
    const timing = { nodeTtlMs: NODE_TTL_MS, heartbeatMs: HEARTBEAT_MS, reconcileIntervalMs: 60_000 };
    const survivor = w.ledger({ ...timing, log });
    await survivor.start();
    await survivor.tick();
    const crashed = w.ledger(timing);
    await crashed.start();
    const held = [
      (await crashed.reserve(t, 1000)) as Hold,
      (await crashed.reserve(t, 1000)) as Hold,
      (await crashed.reserve(t, 1000)) as Hold,
    ];
    await crashed.settle(t, held[0]!, 600);
    await crashed.settle(t, held[1]!, 600);
    const kept = (await survivor.reserve(t, 500)) as Hold;
    expect(await b()).toBe(QUOTA - 500 - 1000 - 1200);

    // The crash: no heartbeat, no commit, no release from here on.
    crashed.presence.halt();
    const [repairs, drift] = [
      await counter(balanceMetrics.repairs, 'users'),
      await counter(balanceMetrics.driftRepaired, 'tokens'),
    ];
    await survivor.tick();
    expect(await b()).toBe(QUOTA - 2700);
    await until(async () => {
      await survivor.tick();
      return (await b()) === QUOTA - 500;
    });
    for (const kind of ['users', 'tokens'] as const) {
      const h = await w.hash(kind, kind === 'users' ? w.userId : w.tokenId);
      expect(Object.keys(h).filter((f) => f.includes(crashed.presence.node))).toEqual([]);
      expect({ b: Number(h.b), held: outstanding(h) }).toEqual({ b: QUOTA - 500, held: 500 });
    }
    const repaired = lines.filter((x) => x.msg.startsWith('balance repaired'));
    // In the order SCAN finds the two balances.
    expect(
      repaired
        .map((x) => ({ kind: x.kind, drift: x.drift, level: x.level }))
        .sort((p, q) => String(p.kind).localeCompare(String(q.kind))),
    ).toEqual([
      { kind: 'tokens', drift: 2200, level: 40 },
      { kind: 'users', drift: 2200, level: 40 },
    ]);
    expect(await counter(balanceMetrics.repairs, 'users')).toBe(repairs + 1);
    expect(await counter(balanceMetrics.driftRepaired, 'tokens')).toBe(drift + 2200);

    await survivor.settle(t, kept, 0);
    expect(await b()).toBe(QUOTA);

    // The dead node wakes up: it takes a new id, its written-off hold gives nothing back twice, and its old
    // charges (replayed from its journal, booked under the old id) release nothing; the next reconciliation
    // takes their database change up.
    const old = crashed.presence.node;
    await crashed.presence.beat();
    expect(crashed.presence.node).not.toBe(old);
    expect(await crashed.settle(t, held[2]!, 300)).toBe(300);
    expect(await b()).toBe(QUOTA - 300);
    await w.commit(crashed, [charged(w, 300, held[2]!)]);
    expect(await b()).toBe(QUOTA - 300);
    expect(held[0]!.node).toBe(old);
    await w.commit(crashed, [charged(w, 600, held[0]!), charged(w, 600, held[1]!)]);
    expect(await b()).toBe(QUOTA - 300);
    await survivor.tick();
    expect(await b()).toBe(QUOTA - 1500);
    expect(await w.db('users', w.userId)).toBe(QUOTA - 1500);
    expect(await w.db('tokens', w.tokenId)).toBe(QUOTA - 1500);
    expect(await b('tokens')).toBe(QUOTA - 1500);
  });

  it('reconciles on one node at a time; another takes over when the leader stops', async () => {
    const [a, c] = [capturingLog(), capturingLog()];
    const timing = { reconcileIntervalMs: 100, heartbeatMs: HEARTBEAT_MS, nodeTtlMs: NODE_TTL_MS };
    const leader = w.ledger({ ...timing, log: a.log });
    await leader.start();
    const other = w.ledger({ ...timing, log: c.log });
    await other.start();
    expect(await leader.available('users', w.userId)).toBe(QUOTA);
    await until(async () => passes(a.lines) >= 4);
    expect(passes(c.lines)).toBe(0);
    expect(await w.redis.get(`${w.prefix}reconcile:leader`)).toBe(leader.presence.node);

    await leader.stop();
    const stoppedAt = passes(a.lines);
    await until(async () => passes(c.lines) >= 3);
    expect(passes(a.lines)).toBe(stoppedAt);
    expect(await w.redis.get(`${w.prefix}reconcile:leader`)).toBe(other.presence.node);
    expect(await w.redis.zscore(`${w.prefix}nodes`, leader.presence.node)).toBeNull();
  });

  it('replaces a crashed leader once it is dead, before its lock would have expired', async () => {
    // The lock outlives two intervals (10 s); the node ttl is 1 s.
    const timing = { reconcileIntervalMs: 5_000, heartbeatMs: HEARTBEAT_MS, nodeTtlMs: NODE_TTL_MS };
    const leader = w.ledger(timing);
    await leader.start();
    await leader.tick();
    expect(await w.redis.get(`${w.prefix}reconcile:leader`)).toBe(leader.presence.node);
    const other = w.ledger(timing);
    await other.start();
    await other.tick();
    expect(await w.redis.get(`${w.prefix}reconcile:leader`)).toBe(leader.presence.node);
    leader.presence.halt();
    const crashedAt = Date.now();
    await until(async () => {
      await other.tick();
      return (await w.redis.get(`${w.prefix}reconcile:leader`)) === other.presence.node;
    });
    expect(Date.now() - crashedAt).toBeLessThan(2 * NODE_TTL_MS + 1_000);
    // The dead leader cannot take the lock back.
    await leader.tick();
    expect(await w.redis.get(`${w.prefix}reconcile:leader`)).toBe(other.presence.node);
  });
});
