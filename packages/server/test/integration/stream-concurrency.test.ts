import { execFileSync } from 'node:child_process';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { HELD_FIRST, HELD_REST, startHeldStreams, type HeldStreams } from '../support/held-streams.js';
import { parseSamples, sampleValue } from '../support/prometheus-text.js';

/**
 * Many streams at once through one channel: none waits for another to end. The upstream mock holds every stream
 * after its first chunk until the client has the first chunk of all of them, so a relay that queued calls behind
 * a connection limit would never get there (the mock gives up after HOLD_TIMEOUT_MS and the test fails). Billing
 * is exact after.
 */
const STREAMS = 600;
const HOLD_TIMEOUT_MS = 30_000;
/** File descriptors the process needs: per stream the client's socket, the server's, the relay's upstream one and the mock's. */
const FDS_PER_STREAM = 4;
const FD_SPARE = 500;
const TOKEN = 'stream-concurrency-metrics-token';
/** ModelPrice 0.002 at the default QuotaPerUnit: each call costs exactly this. */
const CALL_QUOTA = 1000;
const START_QUOTA = 100_000_000;
/** The queue check: a channel limited to LIMIT connections gets CALLS calls at once. */
const LIMIT = 20;
const CALLS = 50;
const OPEN_WAIT_MS = 15_000;

interface StreamTimes {
  status: number;
  firstAt: number;
  endAt: number;
  text: string;
}

/** One streamed call read through: when its first body chunk came (then `onFirst` runs) and when it ended. */
async function streamOnce(
  client: Agent,
  base: string,
  key: string,
  model: string,
  onFirst?: () => void,
): Promise<StreamTimes> {
  const res = await request(`${base}/v1/chat/completions`, {
    method: 'POST',
    dispatcher: client,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  let firstAt = 0;
  let text = '';
  for await (const c of res.body) {
    if (!firstAt) {
      firstAt = performance.now();
      onFirst?.();
    }
    text += (c as Buffer).toString('utf8');
  }
  return { status: res.statusCode, firstAt, endAt: performance.now(), text };
}

const contentOf = (text: string) =>
  text
    .split('\n\n')
    .filter((b) => b.startsWith('data: {'))
    .map(
      (b) =>
        (JSON.parse(b.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '',
    )
    .join('');

describe.each(dialects)('%s: concurrent streams through one channel', (dialect) => {
  const client = new Agent({ connections: null, pipelining: 1 });
  afterAll(() => client.close());
  const gw = useGateway<HeldStreams>(
    dialect,
    {
      env: { METRICS_TOKEN: TOKEN },
      user: 'stream-user',
      quota: START_QUOTA,
      mock: () => startHeldStreams({ releaseAt: Number.POSITIVE_INFINITY, timeoutMs: HOLD_TIMEOUT_MS }),
    },
    async (g) => {
      await g.root.call('PUT', '/api/option/', {
        key: 'ModelPrice',
        value: JSON.stringify({ 'held-model': 0.002, 'limited-model': 0.002 }),
      });
      await addChannel(g.root, { name: 'held', key: 'held-key', baseUrl: g.mock.url, models: 'held-model' });
    },
  );
  const scrape = async () =>
    parseSamples(
      (await gw.t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body,
    );
  /** The user's balance equals the start less the sum of the consume logs, and each call was billed CALL_QUOTA. */
  const expectBilled = async (calls: number) => {
    await drainWriter(gw.t);
    const k = gw.t.database.db.kysely;
    const logs = await k
      .selectFrom('logs')
      .select(['quota'])
      .where('type', '=', 2)
      .where('user_id', '=', gw.user.userId!)
      .execute();
    const user = await k
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', gw.user.userId!)
      .executeTakeFirstOrThrow();
    const sum = logs.reduce((s, l) => s + Number(l.quota), 0);
    expect(logs).toHaveLength(calls);
    expect(sum).toBe(calls * CALL_QUOTA);
    expect({ quota: Number(user.quota), used: Number(user.used_quota) }).toEqual({
      quota: START_QUOTA - sum,
      used: sum,
    });
  };

  it(
    `${STREAMS} streams all get their first chunk before any of them ends; each is billed`,
    { timeout: 60_000 },
    async () => {
      const limit = Number(execFileSync('sh', ['-c', 'ulimit -n']).toString().trim());
      expect(limit, 'open-file limit (ulimit -n) too low for this test').toBeGreaterThanOrEqual(
        STREAMS * FDS_PER_STREAM + FD_SPARE,
      );

      let firsts = 0;
      const firstArrived = () => {
        if (++firsts === STREAMS) gw.mock.release();
      };
      const results = await Promise.all(
        Array.from({ length: STREAMS }, () => streamOnce(client, gw.base, gw.key, 'held-model', firstArrived)),
      );
      expect(gw.mock.releasedBy).toBe('call');
      expect(gw.mock.maxOpen).toBe(STREAMS);
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      const lastFirst = Math.max(...results.map((r) => r.firstAt));
      const firstEnd = Math.min(...results.map((r) => r.endAt));
      expect(lastFirst).toBeLessThan(firstEnd);
      for (const r of results) expect(contentOf(r.text)).toBe(HELD_FIRST + HELD_REST);
      // Nothing waited for a connection.
      expect(sampleValue(await scrape(), 'tollway_upstream_queued_requests', { origin: gw.mock.url })).toBe(0);
      await expectBilled(STREAMS);
    },
  );

  it(
    'a channel with its own connection limit queues the calls beyond it: gauge and counter show them; all finish and are billed',
    { timeout: 60_000 },
    async () => {
      const held = await startHeldStreams({ releaseAt: Number.POSITIVE_INFINITY, timeoutMs: HOLD_TIMEOUT_MS });
      try {
        const id = await addChannel(gw.root, {
          name: 'limited',
          key: 'limited-key',
          baseUrl: held.url,
          models: 'limited-model',
        });
        expect(
          (await gw.root.call('PUT', '/api/channel/', { id, setting: JSON.stringify({ max_conns_per_host: LIMIT }) }))
            .body.success,
        ).toBe(true);
        const origin = held.url;
        const waitsBefore = sampleValue(await scrape(), 'tollway_upstream_connection_waits_total', { origin });
        const calls = Promise.all(
          Array.from({ length: CALLS }, () => streamOnce(client, gw.base, gw.key, 'limited-model')),
        );
        await held.whenOpened(LIMIT, OPEN_WAIT_MS);
        // The calls beyond the limit reach the pool's queue soon after; wait until the gauge has them all.
        let samples = await scrape();
        for (
          let i = 0;
          i < 100 && sampleValue(samples, 'tollway_upstream_queued_requests', { origin }) < CALLS - LIMIT;
          i++
        ) {
          await new Promise((r) => setTimeout(r, 50));
          samples = await scrape();
        }
        expect(sampleValue(samples, 'tollway_upstream_queued_requests', { origin })).toBe(CALLS - LIMIT);
        expect(sampleValue(samples, 'tollway_upstream_connections', { origin })).toBe(LIMIT);
        expect(sampleValue(samples, 'tollway_upstream_connection_waits_total', { origin }) - waitsBefore).toBe(
          CALLS - LIMIT,
        );
        expect(held.maxOpen).toBe(LIMIT);
        held.release();
        const results = await calls;
        expect(results.filter((r) => r.status !== 200 || contentOf(r.text) !== HELD_FIRST + HELD_REST)).toEqual([]);
        expect(sampleValue(await scrape(), 'tollway_upstream_queued_requests', { origin })).toBe(0);
        await expectBilled(STREAMS + CALLS);
      } finally {
        await held.close();
      }
    },
  );
});
