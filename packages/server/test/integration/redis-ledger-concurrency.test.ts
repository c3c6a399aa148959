import { describe, expect, it } from 'vitest';
import type { LedgerRecord, ReserveTarget } from '../../src/accounting/ledger.js';
import { outstanding, useLedgerWorld } from '../support/redis-ledger.js';

const QUOTA = 10_000_000;
const CALLERS = 8;
const CALLS_PER_CALLER = 150;
/** One commit in this many fails and is retried, as the writer retries a failed batch. */
const FAILING_COMMIT_EVERY = 7;
const REFRESH_EVERY = 40;
/** The writer's flush interval, scaled down. */
const COMMIT_EVERY_MS = 8;
/** Calls go on until this many reconciliations went through amid them (within the time limit). */
const MIN_RECONCILED = 30;
const CALLING_LIMIT_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const randomInt = (n: number) => Math.floor(Math.random() * n);

describe('Redis ledger under concurrent load', () => {
  const w = useLedgerWorld(QUOTA);

  it('reconciliations running through concurrent reserves, settles, commits and failed commits never move a balance', async () => {
    const nodes = [w.ledger(), w.ledger()];
    for (const n of nodes) await n.start();
    const limited: ReserveTarget = { userId: w.userId, tokenId: w.tokenId };
    const unlimited: ReserveTarget = { userId: w.userId, tokenId: undefined };
    const pending: LedgerRecord[][] = nodes.map(() => []);
    let calling = true;
    let charges = { users: 0, tokens: 0 };
    let commits = 0;

    const committer = async (i: number) => {
      while (calling || pending[i]!.length) {
        const batch = pending[i]!.splice(0);
        if (batch.length) {
          try {
            await w.commit(nodes[i]!, batch, { fail: ++commits % FAILING_COMMIT_EVERY === 0, lagMs: randomInt(6) });
          } catch {
            pending[i]!.unshift(...batch);
          }
        }
        await sleep(COMMIT_EVERY_MS + randomInt(COMMIT_EVERY_MS));
      }
    };
    let passes = 0;
    let reconciled = 0;
    let repaired = 0;
    const reconciler = async () => {
      while (calling) {
        const r = await nodes[passes++ % 2]!.reconciler.pass(async () => true);
        reconciled += r.checked - r.busy;
        repaired += r.repaired;
        await sleep(1);
      }
    };
    const deadline = Date.now() + CALLING_LIMIT_MS;
    const caller = async (c: number) => {
      for (let k = 0; k < CALLS_PER_CALLER || (reconciled < MIN_RECONCILED && Date.now() < deadline); k++) {
        const i = randomInt(2);
        const node = nodes[i]!;
        const target = k % 3 === 0 ? unlimited : limited;
        const hold = await node.reserve(target, 100 + randomInt(900));
        if (typeof hold === 'string') throw new Error(`refused: ${hold}`);
        await sleep(randomInt(3));
        const charge = await node.settle(target, hold, randomInt(1500));
        charges = { users: charges.users + charge, tokens: charges.tokens + (target.tokenId ? charge : 0) };
        pending[i]!.push({
          userId: w.userId,
          tokenId: w.tokenId,
          tokenLimited: target.tokenId !== undefined,
          quota: charge,
          lease: hold,
        });
        if ((c * CALLS_PER_CALLER + k) % REFRESH_EVERY === 0) await node.refresh('users', w.userId);
      }
    };

    const background = [committer(0), committer(1), reconciler()];
    await Promise.all(Array.from({ length: CALLERS }, (_, c) => caller(c)));
    calling = false;
    await Promise.all(background);

    // Quiet now: every charge committed, nothing outstanding. The balances match the database exactly
    // without any repair, before and after one more reconciliation.
    // Balances were reconciled many times while calls and commits went on, and never found wrong.
    expect(reconciled).toBeGreaterThanOrEqual(MIN_RECONCILED);
    expect(repaired).toBe(0);
    const expected = { users: QUOTA - charges.users, tokens: QUOTA - charges.tokens };
    const state = async () => {
      const [u, t] = [await w.hash('users', w.userId), await w.hash('tokens', w.tokenId)];
      return {
        b: { users: Number(u.b), tokens: Number(t.b) },
        // The database value as the ledger followed it through the commits.
        d: { users: Number(u.d), tokens: Number(t.d) },
        held: outstanding(u) + outstanding(t),
        fenced: [...Object.keys(u), ...Object.keys(t)].filter((f) => f.startsWith('c:')),
      };
    };
    expect({ users: await w.db('users', w.userId), tokens: await w.db('tokens', w.tokenId) }).toEqual(expected);
    expect(await state()).toEqual({ b: expected, d: expected, held: 0, fenced: [] });
    expect((await nodes[0]!.reconciler.pass(async () => true)).repaired).toBe(0);
    expect(await state()).toEqual({ b: expected, d: expected, held: 0, fenced: [] });
  });
});
