import fc from 'fast-check';
import { BILLING_PREFERENCES, ChannelType } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { startMockMidjourney, type MockMidjourney } from '../support/mock-midjourney.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import { MOCK_OPENAI_VIDEO_KEY, startMockVideo, type MockVideo } from '../support/mock-video.js';
import { fundedKey, useMoneyGateway } from '../support/money-property.js';

const RUNS = Number(process.env.MONEY_PROPERTY_RUNS ?? 12);
const QUOTA_PER_UNIT = 500_000;
/** Per-task prices (USD) as ModelPrice sets them. */
const PRICES = { 'sora-2': 0.04, suno_music: 0.1, suno_lyrics: 0.02, mj_imagine: 0.05 } as const;
type TaskModel = keyof typeof PRICES;
const quotaOf = (model: TaskModel) => Math.round(PRICES[model] * QUOTA_PER_UNIT);
/** Poller passes after which every task the mocks finish is final (they finish within three fetches). */
const POLL_PASSES = 6;

/** How the mocks end a task, by a word in its prompt: done, failed after some polls, refused at submit, never done. */
const OUTCOMES = ['done', 'fail', 'refuse', 'never'] as const;
type Outcome = (typeof OUTCOMES)[number];

interface TaskCall {
  model: TaskModel;
  outcome: Outcome;
}

interface Submitted {
  call: TaskCall;
  /** The public task id, when the submit was accepted. */
  id?: string;
}

const headers = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** Submits one task through its public route (OpenAI videos, Suno); its public id when accepted. */
async function submit(base: string, key: string, c: TaskCall): Promise<Submitted> {
  // The midjourney mock refuses "banned" prompts; the others "refuse" ones.
  const prompt = `${c.outcome}${c.outcome === 'refuse' ? ' banned' : ''} ${c.model}`;
  const [path, body] =
    c.model === 'sora-2'
      ? ['/v1/videos', { model: c.model, prompt, seconds: '4' }]
      : c.model === 'mj_imagine'
        ? ['/mj/submit/imagine', { prompt }]
        : [
            c.model === 'suno_music' ? '/suno/submit/music' : '/suno/submit/lyrics',
            { prompt, ...(c.model === 'suno_music' ? { tags: 'folk' } : {}) },
          ];
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: headers(key), body: JSON.stringify(body) });
  const json = (await res.json()) as { id?: string; code?: string | number; data?: unknown; result?: string };
  if (res.status !== 200) return { call: c };
  // midjourney-proxy answers 200 with code 1 (submitted) or another code (refused); Suno code "success".
  const id =
    c.model === 'sora-2'
      ? json.id
      : c.model === 'mj_imagine'
        ? json.code === 1
          ? json.result
          : undefined
        : json.code === 'success'
          ? (json.data as string)
          : undefined;
  // An accepted task's answer carries its cost receipt: the charge made when the upstream accepted it.
  if (id) expect(res.headers.get('x-tollway-cost-quota'), c.model).toBe(String(quotaOf(c.model)));
  return { call: c, id };
}

/** The task's state as its owner reads it: done (delivered), failed, or still running. */
async function stateOf(base: string, key: string, s: Submitted): Promise<'done' | 'failed' | 'running'> {
  if (s.call.model === 'sora-2') {
    const v = (await (await fetch(`${base}/v1/videos/${s.id}`, { headers: headers(key) })).json()) as {
      status: string;
    };
    return v.status === 'completed' ? 'done' : v.status === 'failed' ? 'failed' : 'running';
  }
  if (s.call.model === 'mj_imagine') {
    const t = (await (await fetch(`${base}/mj/task/${s.id}/fetch`, { headers: headers(key) })).json()) as {
      status: string;
    };
    return t.status === 'SUCCESS' ? 'done' : t.status === 'FAILURE' ? 'failed' : 'running';
  }
  const r = (await (await fetch(`${base}/suno/fetch/${s.id}`, { headers: headers(key) })).json()) as {
    data: { status: string };
  };
  return r.data.status === 'SUCCESS' ? 'done' : r.data.status === 'FAILURE' ? 'failed' : 'running';
}

const taskCall = fc.record({
  model: fc.constantFrom(...(Object.keys(PRICES) as TaskModel[])),
  outcome: fc.constantFrom(...OUTCOMES),
});

/**
 * Issue 31: Σ value delivered ≤ Σ charged ≤ starting balance for tasks (videos, Suno music and lyrics, Midjourney), submitted
 * in parallel from random balances, some failing upstream (refunded), some refused at submit, some never done.
 * Nothing is forgiven either: what stays charged is exactly the price of every accepted task that did not fail.
 */
describe.each(dialects.filter((d) => d !== 'mysql'))('tasks money property on %s', (dialect) => {
  let suno: MockSuno;
  let mj: MockMidjourney;
  const gw = useMoneyGateway<MockVideo>(dialect, { redis: dialect === 'postgres', mock: startMockVideo }, async (g) => {
    suno = await startMockSuno();
    mj = await startMockMidjourney();
    await addChannel(g.root, {
      name: 'mj-property',
      key: mj.secret,
      baseUrl: mj.url,
      models: 'mj_imagine',
      type: ChannelType.Midjourney,
    });
    await addChannel(g.root, {
      name: 'sora-property',
      key: MOCK_OPENAI_VIDEO_KEY,
      baseUrl: g.mock.url,
      models: 'sora-2',
      type: ChannelType.Sora,
    });
    await addChannel(g.root, {
      name: 'suno-property',
      key: MOCK_SUNO_KEY,
      baseUrl: suno.url,
      models: 'suno_music,suno_lyrics',
      type: ChannelType.SunoAPI,
    });
    await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify(PRICES) });
  });
  afterAll(async () => {
    await suno?.close();
    await mj?.close();
  });

  it('never delivers more than it charges, never charges more than the balance, refunds exactly the failed tasks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200_000 }),
        fc.array(taskCall, { minLength: 1, maxLength: 6 }),
        // Part of the money may sit in a subscription plan, drawn as the billing preference says (refunds go back
        // to the plan the task was charged to).
        fc.integer({ min: 0, max: 200_000 }),
        fc.constantFrom(...BILLING_PREFERENCES),
        async (start, calls, planQuota, preference) => {
          const { userId, key } = await fundedKey(gw, start, { quota: planQuota, preference });
          const submitted = await Promise.all(calls.map((c) => submit(gw.base, key, c)));
          const accepted = submitted.filter((s) => s.id);
          for (let i = 0; i < POLL_PASSES; i++) await gw.t.runtime.taskPoller.job.runOnce();
          const states = await Promise.all(accepted.map((s) => stateOf(gw.base, key, s)));
          await drainWriter(gw.t);
          const k = gw.t.database.db.kysely;
          const wallet = Number(
            (await k.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota,
          );
          const plans = await k
            .selectFrom('user_subscriptions')
            .select(['amount_total', 'amount_used'])
            .where('user_id', '=', userId)
            .execute();
          const balance = plans.reduce((n, p) => n + Number(p.amount_total) - Number(p.amount_used), wallet);
          const charged = start - balance;
          const delivered = accepted.reduce((n, s, i) => n + (states[i] === 'done' ? quotaOf(s.call.model) : 0), 0);
          const standing = accepted.reduce((n, s, i) => n + (states[i] === 'failed' ? 0 : quotaOf(s.call.model)), 0);
          expect(delivered, `delivered ${delivered} > charged ${charged}`).toBeLessThanOrEqual(charged);
          expect(charged).toBeLessThanOrEqual(start);
          expect(balance).toBeGreaterThanOrEqual(0);
          expect(charged).toBe(standing);
          // The mocks' words decide: refused submits were never accepted, failed ones failed, done ones delivered.
          expect(submitted.filter((s) => s.call.outcome === 'refuse' && s.id)).toEqual([]);
          expect(accepted.filter((s, i) => s.call.outcome === 'done' && states[i] !== 'done')).toEqual([]);
          expect(accepted.filter((s, i) => s.call.outcome === 'fail' && states[i] !== 'failed')).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  }, 240_000);
});
