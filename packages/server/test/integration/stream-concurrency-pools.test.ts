import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { HELD_FIRST, HELD_REST, startHeldStreams, type HeldStreams } from '../support/held-streams.js';

/**
 * A channel with connection keys in its setting (max_conns_per_host, http2_enabled) has pools of its own. When the
 * channel is deleted or drops those keys, its pools close once the calls on them have finished: the upstream sees
 * its keep-alive connection closed at once instead of after the idle timeout (30 s), and the call in flight ends
 * normally.
 */
const HOLD_TIMEOUT_MS = 20_000;
const OPEN_WAIT_MS = 10_000;
const CLOSE_WAIT_MS = 3_000;
const POLL_MS = 50;
const MODEL = 'pooled-model';
const OWN_SETTING = JSON.stringify({ max_conns_per_host: 5 });

async function streamOnce(client: Agent, base: string, key: string): Promise<{ status: number; text: string }> {
  const res = await request(`${base}/v1/chat/completions`, {
    method: 'POST',
    dispatcher: client,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.statusCode, text: await res.body.text() };
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

/** Connections open to the mock once they drop to none, or the count left after CLOSE_WAIT_MS. */
async function connectionsLeft(mock: HeldStreams): Promise<number> {
  const until = Date.now() + CLOSE_WAIT_MS;
  let n = await mock.connections();
  while (n > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    n = await mock.connections();
  }
  return n;
}

describe.each(dialects)("%s: a channel's own connection pools", (dialect) => {
  const client = new Agent();
  afterAll(() => client.close());
  const gw = useGateway(dialect, { user: 'pools-user', quota: 100_000_000 }, async (g) => {
    await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.002 }) });
  });

  /** A channel with its own pools on a fresh held mock, one stream in flight through it. */
  async function streamThroughOwnPool() {
    const mock = await startHeldStreams({ releaseAt: Number.POSITIVE_INFINITY, timeoutMs: HOLD_TIMEOUT_MS });
    const id = await addChannel(gw.root, { name: 'own-pools', key: 'own-key', baseUrl: mock.url, models: MODEL });
    expect((await gw.root.call('PUT', '/api/channel/', { id, setting: OWN_SETTING })).body.success).toBe(true);
    const call = streamOnce(client, gw.base, gw.key);
    await mock.whenOpened(1, OPEN_WAIT_MS);
    return { mock, id, call };
  }

  it('a deleted channel: the stream in flight ends normally, then the upstream connection is closed', async () => {
    const { mock, id, call } = await streamThroughOwnPool();
    try {
      await gw.root.call('DELETE', `/api/channel/${id}`);
      expect(await mock.connections()).toBe(1);
      mock.release();
      const r = await call;
      expect(r.status).toBe(200);
      expect(contentOf(r.text)).toBe(HELD_FIRST + HELD_REST);
      expect(await connectionsLeft(mock)).toBe(0);
    } finally {
      await mock.close();
    }
  });

  it('a channel that drops its connection keys: its own pool closes after the call; later calls use the shared pool', async () => {
    const { mock, id, call } = await streamThroughOwnPool();
    try {
      expect(
        (await gw.root.call('PUT', '/api/channel/', { id, setting: JSON.stringify({ rpm_limit: 0 }) })).body.success,
      ).toBe(true);
      mock.release();
      const r = await call;
      expect(contentOf(r.text)).toBe(HELD_FIRST + HELD_REST);
      expect(await connectionsLeft(mock)).toBe(0);
      const next = await streamOnce(client, gw.base, gw.key);
      expect(contentOf(next.text)).toBe(HELD_FIRST + HELD_REST);
      expect(mock.opened).toBe(2);
    } finally {
      await gw.root.call('DELETE', `/api/channel/${id}`);
      await mock.close();
    }
  });
});
