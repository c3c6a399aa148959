import { beforeEach, describe, expect, it } from 'vitest';
import { balanceMetrics } from '../../src/accounting/balance-metrics.js';
import { combineHolds, type Hold, type ReserveTarget } from '../../src/accounting/ledger.js';
import { MAX_CALLS_PER_RUN } from '../../src/accounting/script-batch.js';
import { capturingLog, charged, counter, outstanding, until, useLedgerWorld } from '../support/redis-ledger.js';

const QUOTA = 100_000;

describe('Redis ledger: leases, commits and reconciliation', () => {
  const w = useLedgerWorld(QUOTA);
  let t: ReserveTarget;
  beforeEach(async () => {
    await w.reset();
    t = { userId: w.userId, tokenId: w.tokenId };
  });

  /** For the user and the token: b + what nodes hold outstanding is the database value; returns b. */
  async function expectBalanced(held: number): Promise<number> {
    let b = 0;
    for (const [kind, id] of [
      ['users', w.userId],
      ['tokens', w.tokenId],
    ] as const) {
      const h = await w.hash(kind, id);
      const db = await w.db(kind, id);
      expect({ kind, held: outstanding(h), b: Number(h.b) }).toEqual({ kind, held, b: db - held });
      expect(Object.keys(h).filter((f) => f.startsWith('c:'))).toEqual([]);
      b = Number(h.b);
    }
    return b;
  }

  it('keeps b = database − live leases at every step of reserve, settle, commit and a failed commit', async () => {
    const l = w.ledger();
    await l.start();
    const h1 = (await l.reserve(t, 1000)) as Hold;
    expect(h1.node).toBe(l.presence.node);
    expect(await expectBalanced(1000)).toBe(QUOTA - 1000);
    const h2 = (await l.reserve(t, 500)) as Hold;
    await expectBalanced(1500);
    expect(await l.settle(t, h1, 700)).toBe(700);
    await expectBalanced(500 + 700);
    // A charge above its reservation takes what the balance has.
    expect(await l.settle(t, h2, 900)).toBe(900);
    await expectBalanced(700 + 900);
    await w.commit(l, [charged(w, 700, h1)]);
    await expectBalanced(900);
    expect(await w.db('users', w.userId)).toBe(QUOTA - 700);
    await w.commit(l, [charged(w, 900, h2)]);
    expect(await expectBalanced(0)).toBe(QUOTA - 1600);

    const h3 = (await l.reserve(t, 100)) as Hold;
    await l.settle(t, h3, 100);
    await expect(w.commit(l, [charged(w, 100, h3)], { fail: true })).rejects.toThrow('commit refused');
    await l.whenReleased();
    await expectBalanced(100);
    await w.commit(l, [charged(w, 100, h3)]);
    expect(await expectBalanced(0)).toBe(QUOTA - 1700);
    expect((await w.hash('users', w.userId)).v).toBe('3');
  });

  it('settles several holds of one call in one step: a concurrent reservation cannot take what they held', async () => {
    const l = w.ledger();
    await l.start();
    const first = (await l.reserve(t, 1000)) as Hold;
    const extension = (await l.reserve(t, 500)) as Hold;
    // Another call holds everything else: released one by one, the extension's 500 would go to the next reservation.
    const rest = (await l.reserve(t, QUOTA, 1)) as Hold;
    expect(rest.amount).toBe(QUOTA - 1500);
    const { hold, others } = combineHolds([first, extension]);
    expect({ amount: hold.amount, others }).toEqual({ amount: 1500, others: [] });
    const racing = l.reserve(t, 1);
    expect(await l.settle(t, hold, 1500)).toBe(1500);
    expect(await racing).toBe('user');
    await w.commit(l, [charged(w, 1500, hold)]);
    await l.settle(t, rest, 0);
    expect(await expectBalanced(0)).toBe(QUOTA - 1500);
  });

  it('combines only the holds booked where the last one is: one taken before a rebuild is released on its own', async () => {
    const l = w.ledger();
    await l.start();
    const old = (await l.reserve(t, 2000)) as Hold;
    await w.redis.del(w.key('users', w.userId), w.key('tokens', w.tokenId));
    const fresh = (await l.reserve(t, 300)) as Hold;
    const { hold, others } = combineHolds([old, fresh]);
    expect({ amount: hold.amount, others }).toEqual({ amount: 300, others: [old] });
    expect(await l.settle(t, others[0]!, 0)).toBe(0);
    expect(await l.settle(t, hold, 300)).toBe(300);
    await w.commit(l, [charged(w, 300, hold)]);
    expect(await expectBalanced(0)).toBe(QUOTA - 300);
  });

  it('never credits a reservation to a balance rebuilt after it was taken (a lost key)', async () => {
    const l = w.ledger();
    await l.start();
    const hold = (await l.reserve(t, 2000)) as Hold;
    await w.redis.del(w.key('users', w.userId), w.key('tokens', w.tokenId));
    expect(await l.available('users', w.userId)).toBe(QUOTA);
    // The token's balance comes back on the next reservation.
    const other = (await l.reserve(t, 10)) as Hold;
    expect(await l.settle(t, hold, 400)).toBe(400);
    expect(await l.available('users', w.userId)).toBe(QUOTA - 10 - 400);
    await w.commit(l, [charged(w, 400, hold)]);
    await l.settle(t, other, 0);
    expect(await expectBalanced(0)).toBe(QUOTA - 400);
  });

  it('gives every balance key a ttl that only a reconciliation renews; an expired balance is rebuilt from the database', async () => {
    const l = w.ledger({ balanceTtlMs: 5_000, reconcileIntervalMs: 2_000 });
    await l.start();
    await l.tick();
    const hold = (await l.reserve(t, 300)) as Hold;
    const key = w.key('users', w.userId);
    const ttl = await w.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    await w.redis.pexpire(key, 1_000);
    await l.settle(t, hold, 300);
    expect(await w.redis.pttl(key)).toBeLessThanOrEqual(1_000);
    await l.tick();
    expect(await w.redis.pttl(key)).toBeGreaterThan(4_000);

    const epoch = (await w.hash('users', w.userId)).g;
    await w.redis.pexpire(key, 1);
    await until(async () => (await w.redis.exists(key)) === 0);
    expect(await l.available('users', w.userId)).toBe(QUOTA);
    expect((await w.hash('users', w.userId)).g).not.toBe(epoch);
    expect(await w.redis.pttl(key)).toBeGreaterThan(4_000);
  });

  it('repairs drift written straight into Redis at the next periodic reconciliation, with a log line and the metrics', async () => {
    const { log, lines } = capturingLog();
    const l = w.ledger({ log, reconcileIntervalMs: 200 });
    await l.start();
    const hold = (await l.reserve(t, 300)) as Hold;
    const [repairs, drift] = [
      await counter(balanceMetrics.repairs, 'users'),
      await counter(balanceMetrics.driftRepaired, 'users'),
    ];
    await w.redis.hincrby(w.key('users', w.userId), 'b', -777);
    await until(async () => Number((await w.hash('users', w.userId)).b) === QUOTA - 300);
    expect(lines.find((x) => x.msg.startsWith('balance repaired'))).toMatchObject({
      level: 40,
      kind: 'users',
      id: w.userId,
      drift: 777,
      balance: QUOTA - 300,
    });
    expect(await counter(balanceMetrics.repairs, 'users')).toBe(repairs + 1);
    expect(await counter(balanceMetrics.driftRepaired, 'users')).toBe(drift + 777);
    await l.settle(t, hold, 0);
    await expectBalanced(0);
  });

  it('takes up an admin change on refresh with the live leases kept, without counting a repair', async () => {
    const l = w.ledger();
    await l.start();
    const hold = (await l.reserve(t, 300)) as Hold;
    const repairs = await counter(balanceMetrics.repairs, 'users');
    await w.database.db.kysely.updateTable('users').set({ quota: 5_000 }).where('id', '=', w.userId).execute();
    await l.refresh('users', w.userId);
    expect(await l.available('users', w.userId)).toBe(4_700);
    expect(await counter(balanceMetrics.repairs, 'users')).toBe(repairs);
    await l.settle(t, hold, 0);
    expect(await l.available('users', w.userId)).toBe(5_000);
  });

  it('takes up an admin change seen first by the periodic reconciliation without counting it as a repair', async () => {
    const { log, lines } = capturingLog();
    const l = w.ledger({ log });
    await l.start();
    const hold = (await l.reserve(t, 300)) as Hold;
    await l.settle(t, hold, 200);
    const repairs = await counter(balanceMetrics.repairs, 'tokens');
    await w.database.db.kysely.updateTable('tokens').set({ remain_quota: 9_000 }).where('id', '=', w.tokenId).execute();
    await l.tick();
    expect(await l.available('tokens', w.tokenId)).toBe(9_000 - 200);
    expect(await counter(balanceMetrics.repairs, 'tokens')).toBe(repairs);
    expect(lines.filter((x) => x.msg.startsWith('balance repaired'))).toEqual([]);
    expect(lines.find((x) => x.msg.startsWith('balance took up a database change'))).toMatchObject({
      level: 30,
      kind: 'tokens',
      id: w.tokenId,
      change: 9_000 - QUOTA,
    });
    await w.commit(l, [charged(w, 200, hold)]);
    expect(await l.available('tokens', w.tokenId)).toBe(8_800);
    await expectBalanced(0);
  });

  it('drops the balance of a user deleted from the database', async () => {
    const l = w.ledger();
    await l.start();
    expect(await l.available('users', w.userId)).toBe(QUOTA);
    await w.database.db.kysely
      .updateTable('users')
      .set({ deleted_at: '2026-01-01 00:00:00' })
      .where('id', '=', w.userId)
      .execute();
    await l.tick();
    expect(await w.redis.exists(w.key('users', w.userId))).toBe(0);
    expect(await l.reserve(t, 1)).toBe('user');
  });

  it('sends the reservations and settlements of one event-loop turn in one script run, each call getting its own result as if run alone', async () => {
    const l = w.ledger();
    await l.start();
    await l.settle(t, (await l.reserve(t, 1000)) as Hold, 0);
    // Counts the script runs this ledger's client sends (the real client and Redis do the work).
    let runs = 0;
    const evalsha = w.redis.evalsha.bind(w.redis);
    w.redis.evalsha = ((...args: Parameters<typeof evalsha>) => (runs++, evalsha(...args))) as typeof w.redis.evalsha;
    try {
      const AMOUNT = 7_000;
      const CALLS = 30;
      const results = await Promise.all(Array.from({ length: CALLS }, () => l.reserve(t, AMOUNT)));
      expect(runs).toBe(1);
      // In call order, as one run after another would: 14 of 7,000 fit in 100,000; the rest are refused.
      const fit = Math.floor(QUOTA / AMOUNT);
      expect(results.map((r) => (typeof r === 'string' ? r : 'held'))).toEqual(
        Array.from({ length: CALLS }, (_, i) => (i < fit ? 'held' : 'user')),
      );
      await expectBalanced(fit * AMOUNT);
      const holds = results.slice(0, fit) as Hold[];
      runs = 0;
      const charges = await Promise.all(holds.map((h, i) => l.settle(t, h, 100 * (i + 1))));
      expect(runs).toBe(1);
      expect(charges).toEqual(holds.map((_, i) => 100 * (i + 1)));
      const charged = (fit * (fit + 1) * 100) / 2;
      await expectBalanced(charged);
      // More calls than one run takes go in several.
      runs = 0;
      const many = await Promise.all(Array.from({ length: MAX_CALLS_PER_RUN + 6 }, () => l.reserve(t, 1)));
      expect(runs).toBe(2);
      expect(many.every((h) => typeof h !== 'string')).toBe(true);
      await expectBalanced(charged + MAX_CALLS_PER_RUN + 6);
    } finally {
      w.redis.evalsha = evalsha;
    }
  });

  it('fails only the call whose script failed within a shared run; the others in it are applied and answered', async () => {
    const l = w.ledger();
    await l.start();
    await l.settle(t, (await l.reserve(t, 1000)) as Hold, 0);
    const userOnly: ReserveTarget = { userId: w.userId, tokenId: undefined };
    // A token balance without its spendable field: its reservation raises an error inside the script.
    await w.redis.hdel(w.key('tokens', w.tokenId), 'b');
    const [a, broken, c] = await Promise.allSettled([
      l.reserve(userOnly, 300),
      l.reserve(t, 200),
      l.reserve(userOnly, 400),
    ]);
    expect(a.status).toBe('fulfilled');
    expect(c.status).toBe('fulfilled');
    expect(broken.status).toBe('rejected');
    const user = await w.hash('users', w.userId);
    expect({ b: Number(user.b), held: outstanding(user) }).toEqual({ b: QUOTA - 700, held: 700 });
  });

  it('settles on one node a reservation another node holds: the holder gets it back, the settling node holds the charge', async () => {
    const [a, b] = [w.ledger(), w.ledger()];
    await a.start();
    await b.start();
    const hold = (await a.reserve(t, 1000)) as Hold;
    expect(await b.settle(t, hold, 600)).toBe(600);
    for (const kind of ['users', 'tokens'] as const) {
      const h = await w.hash(kind, kind === 'users' ? w.userId : w.tokenId);
      expect({ b: Number(h.b), a: outstanding(h, [a.presence.node]), byB: outstanding(h, [b.presence.node]) }).toEqual({
        b: QUOTA - 600,
        a: 0,
        byB: 600,
      });
    }
    expect(hold.node).toBe(b.presence.node);
  });

  it('keeps balances above 2^50 exact', async () => {
    const big = 2 ** 50 + 7;
    await w.database.db.kysely.updateTable('users').set({ quota: big }).where('id', '=', w.userId).execute();
    const l = w.ledger();
    await l.start();
    const hold = (await l.reserve({ userId: w.userId, tokenId: undefined }, 1_000_003)) as Hold;
    expect(await l.available('users', w.userId)).toBe(big - 1_000_003);
    await w.redis.hincrby(w.key('users', w.userId), 'b', 5);
    await l.tick();
    expect((await w.hash('users', w.userId)).b).toBe(String(big - 1_000_003));
    await l.settle({ userId: w.userId, tokenId: undefined }, hold, 0);
  });
});
