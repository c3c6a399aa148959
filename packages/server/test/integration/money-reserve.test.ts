import { beforeEach, describe, expect, it } from 'vitest';
import type { Hold, Ledger, ReserveTarget } from '../../src/accounting/ledger.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { addToken, drainWriter, setQuota } from '../support/gateway.js';
import { createUserClient } from '../support/app.js';
import { outstanding, useLedgerWorld } from '../support/redis-ledger.js';

/**
 * The ledger's "reserve up to X, at least the minimum" (issue 31 hole 1): as much of X as the user and a limited
 * token both have, never less than the minimum, atomically: concurrent calls never hold more than the balance.
 */

const CONCURRENT = 50;
const UP_TO = 300;
const LEAST = 100;

/** 50 concurrent holds of up to 300 (at least 100) from `balance`: what each got. */
async function burst(ledger: Ledger, t: ReserveTarget): Promise<(Hold | 'user' | 'token')[]> {
  return Promise.all(Array.from({ length: CONCURRENT }, () => ledger.reserve(t, UP_TO, LEAST)));
}

const held = (holds: (Hold | 'user' | 'token')[]) => holds.filter((h): h is Hold => typeof h === 'object');

describe.each(dialects)('memory ledger: reserve up to, on %s', (dialect) => {
  const app = useApp(dialect);
  let userId: number;
  let ledger: Ledger;
  beforeEach(async () => {
    const u = await createUserClient(app.t.app, app.root, `reserve${Math.random().toString(36).slice(2, 8)}`);
    userId = u.userId!;
    ledger = app.t.runtime.ctx.relay.ledger;
  });

  it('holds what the user and a limited token both have, at least the minimum, else names who is short', async () => {
    await setQuota(app.root, userId, 3_000);
    const { id: tokenId } = await addToken(app.t, userId, { remainQuota: 2_000 });
    const t = { userId, tokenId };
    expect(await ledger.reserve(t, 5_000, 100)).toEqual({ amount: 2_000 });
    expect(await ledger.reserve(t, 5_000, 100)).toBe('token');
    expect(await ledger.available('users', userId)).toBe(1_000);
    // Without a minimum, all or nothing, as before.
    expect(await ledger.reserve({ userId, tokenId: undefined }, 1_001)).toBe('user');
    expect(await ledger.reserve({ userId, tokenId: undefined }, 5_000, 1_001)).toBe('user');
    const h = (await ledger.reserve({ userId, tokenId: undefined }, 5_000, 1_000)) as Hold;
    expect(h.amount).toBe(1_000);
    // A free call needs no balance.
    expect(await ledger.reserve({ userId, tokenId: undefined }, 0, 0)).toEqual({ amount: 0 });
  });

  it('never holds more than the balance across concurrent calls, and gives back what settles below the hold', async () => {
    await setQuota(app.root, userId, 1_000);
    const t = { userId, tokenId: undefined };
    const holds = await burst(ledger, t);
    const taken = held(holds);
    // 3 × 300, then the last 100, then nothing: the sum is the balance.
    expect(taken.map((h) => h.amount).sort((a, b) => b - a)).toEqual([300, 300, 300, 100]);
    expect(holds.filter((h) => h === 'user')).toHaveLength(CONCURRENT - 4);
    expect(await ledger.available('users', userId)).toBe(0);
    let charged = 0;
    for (const h of taken) charged += await ledger.settle(t, h, 50);
    expect(charged).toBe(200);
    expect(await ledger.available('users', userId)).toBe(800);
    await drainWriter(app.t);
  });
});

describe('Redis ledger: reserve up to', () => {
  const QUOTA = 1_000;
  const w = useLedgerWorld(QUOTA);
  let t: ReserveTarget;
  beforeEach(async () => {
    await w.reset();
    t = { userId: w.userId, tokenId: w.tokenId };
  });

  it('holds as much as both balances have, at least the minimum, and books exactly that as the node’s lease', async () => {
    const l = w.ledger();
    await l.start();
    const h = (await l.reserve(t, 5_000, 100)) as Hold;
    expect(h.amount).toBe(QUOTA);
    for (const kind of ['users', 'tokens'] as const) {
      const hash = await w.hash(kind, kind === 'users' ? w.userId : w.tokenId);
      expect({ b: Number(hash.b), held: outstanding(hash) }).toEqual({ b: 0, held: QUOTA });
    }
    expect(await l.reserve(t, 5_000, 1)).toBe('user');
    expect(await l.settle(t, h, 400)).toBe(400);
    expect(Number((await w.hash('users', w.userId)).b)).toBe(QUOTA - 400);
    // The minimum above what is left: refused, nothing moves.
    expect(await l.reserve(t, 5_000, 601)).toBe('user');
    expect(((await l.reserve(t, 5_000, 600)) as Hold).amount).toBe(600);
  });

  it('never holds more than the balance across two nodes reserving at once (batched script runs)', async () => {
    const a = w.ledger();
    const b = w.ledger();
    await a.start();
    await b.start();
    const holds = (await Promise.all([burst(a, t), burst(b, t)])).flat();
    const taken = held(holds);
    expect(taken.reduce((s, h) => s + h.amount, 0)).toBe(QUOTA);
    expect(taken.every((h) => h.amount >= LEAST && h.amount <= UP_TO)).toBe(true);
    expect(Number((await w.hash('users', w.userId)).b)).toBe(0);
    expect(Number((await w.hash('tokens', w.tokenId)).b)).toBe(0);
  });
});
