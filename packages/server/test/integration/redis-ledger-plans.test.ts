import { beforeEach, describe, expect, it } from 'vitest';
import type { Hold, LedgerRecord, ReserveTarget } from '../../src/accounting/ledger.js';
import { capturingLog, outstanding, until, useLedgerWorld } from '../support/redis-ledger.js';

const QUOTA = 100_000;

/**
 * A subscription plan is a balance of the Redis ledger like a wallet (key bal:p:<id>): a call drawing from it holds,
 * settles and commits there, the reconciliation keeps b = (amount_total − amount_used) − live leases, and a period
 * reset is taken up with the leases kept. The wallet does not move.
 */
describe('Redis ledger: subscription plan balances', () => {
  const w = useLedgerWorld(QUOTA);
  let t: ReserveTarget;
  beforeEach(async () => {
    await w.reset();
    t = { userId: w.userId, tokenId: w.tokenId, planId: w.planId };
  });
  const onPlan = (quota: number, lease: Hold): LedgerRecord => ({
    userId: w.userId,
    tokenId: w.tokenId,
    tokenLimited: true,
    planId: w.planId,
    quota,
    lease,
  });

  async function expectPlanBalanced(held: number): Promise<number> {
    const h = await w.hash('plans', w.planId);
    const db = await w.db('plans', w.planId);
    expect({ held: outstanding(h), b: Number(h.b) }).toEqual({ held, b: db - held });
    return Number(h.b);
  }

  it('holds, settles and commits on the plan; the token follows, the wallet is never touched', async () => {
    const l = w.ledger();
    await l.start();
    const hold = (await l.reserve(t, 4_000)) as Hold;
    expect(await expectPlanBalanced(4_000)).toBe(QUOTA - 4_000);
    expect(await l.settle(t, hold, 2_500)).toBe(2_500);
    await w.commit(l, [onPlan(2_500, hold)]);
    expect(await expectPlanBalanced(0)).toBe(QUOTA - 2_500);
    expect(await w.db('users', w.userId)).toBe(QUOTA);
    expect(await w.hash('users', w.userId)).toEqual({});
    expect(await w.db('tokens', w.tokenId)).toBe(QUOTA - 2_500);
    // A plan short of the call says so like a wallet ('user': the payer), whatever the wallet holds.
    expect(await l.reserve(t, QUOTA)).toBe('user');
  });

  it('repairs drift on a plan key at the next reconciliation', async () => {
    const { log, lines } = capturingLog();
    const l = w.ledger({ log, reconcileIntervalMs: 200 });
    await l.start();
    const hold = (await l.reserve(t, 300)) as Hold;
    await w.redis.hincrby(w.key('plans', w.planId), 'b', -900);
    await until(async () => Number((await w.hash('plans', w.planId)).b) === QUOTA - 300);
    expect(lines.find((x) => x.msg.startsWith('balance repaired'))).toMatchObject({
      kind: 'plans',
      id: w.planId,
      drift: 900,
    });
    await l.settle(t, hold, 0);
    await expectPlanBalanced(0);
  });

  it('takes up a period reset on refresh with the live leases kept', async () => {
    const l = w.ledger();
    await l.start();
    const spent = (await l.reserve(t, 60_000)) as Hold;
    await l.settle(t, spent, 60_000);
    await w.commit(l, [onPlan(60_000, spent)]);
    const live = (await l.reserve(t, 1_000)) as Hold;
    expect(await l.available('plans', w.planId)).toBe(QUOTA - 61_000);
    await w.database.db.kysely
      .updateTable('user_subscriptions')
      .set({ amount_used: 0 })
      .where('id', '=', w.planId)
      .execute();
    await l.refresh('plans', w.planId);
    expect(await l.available('plans', w.planId)).toBe(QUOTA - 1_000);
    await l.settle(t, live, 0);
    expect(await l.available('plans', w.planId)).toBe(QUOTA);
  });
});
