import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken } from '../support/gateway.js';
import { startMockRealtime, type MockRealtime } from '../support/mock-realtime.js';

/** Opens a realtime session with `key` and resolves once session.created arrived. */
function openSession(url: string, key: string, opts: { autoPong?: boolean } = {}) {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` }, autoPong: opts.autoPong ?? true });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const created = new Promise<void>((resolve, reject) => {
    ws.on('message', (d) => (JSON.parse(d.toString()) as { type: string }).type === 'session.created' && resolve());
    ws.once('error', reject);
  });
  return { ws, closed, created };
}

/** Realtime sessions nobody uses end: no frame for REALTIME_IDLE_TIMEOUT, or a peer that stops answering pings. */
describe.each(dialects)('realtime session liveness on %s', (dialect) => {
  let t: TestApp, mock: MockRealtime, root: Client, user: Client, wsUrl: string;
  useGateway(
    dialect,
    {
      user: 'rt-idle-user',
      quota: 1_000_000,
      token: false,
      mock: startMockRealtime,
      env: { REALTIME_IDLE_TIMEOUT: '1' },
    },
    async (gw) => {
      ({ t, mock, root, user } = gw);
      wsUrl = `${gw.base.replace('http', 'ws')}/v1/realtime?model=gpt-4o-realtime-preview`;
      await addChannel(root, { name: 'rt', key: 'rt-key', baseUrl: mock.url, models: 'gpt-4o-realtime-preview' });
      await root.call('PUT', '/api/option/', {
        key: 'ModelRatio',
        value: JSON.stringify({ 'gpt-4o-realtime-preview': 2.5 }),
      });
    },
  );

  const tokenAvailable = (id: number) => t.runtime.ctx.relay.ledger.available('tokens', id);

  it('a session without frames for the idle timeout is closed at both ends and its reservation released', async () => {
    const token = await addToken(t, user.userId!, { remainQuota: 50_000 });
    const s = openSession(wsUrl, token.key);
    await s.created;
    const upstream = mock.connections.at(-1)!.socket!;
    const upstreamClosed = new Promise<number>((resolve) => upstream.on('close', (code) => resolve(code)));
    expect(await tokenAvailable(token.id)).toBeLessThan(50_000);
    const t0 = Date.now();
    expect(await s.closed).toEqual({ code: 1000, reason: 'idle timeout' });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(await upstreamClosed).toBe(1000);
    await expect.poll(() => tokenAvailable(token.id)).toBe(50_000);
  });

  it('a session with frames keeps going past the idle timeout', async () => {
    const token = await addToken(t, user.userId!, { remainQuota: 50_000 });
    const s = openSession(wsUrl, token.key);
    await s.created;
    let open = true;
    void s.closed.then(() => (open = false));
    for (let i = 0; i < 8; i++) {
      s.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'AAAA' }));
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(open).toBe(true);
    s.ws.close(1000);
  });

  it('a client that stops answering pings is dropped even while it sends frames', async () => {
    const token = await addToken(t, user.userId!, { remainQuota: 50_000 });
    const s = openSession(wsUrl, token.key, { autoPong: false });
    await s.created;
    const timer = setInterval(
      () =>
        s.ws.readyState === WebSocket.OPEN &&
        s.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'AAAA' })),
      200,
    );
    try {
      const { code } = await s.closed;
      // Terminated without a close frame.
      expect(code).toBe(1006);
    } finally {
      clearInterval(timer);
    }
    await expect.poll(() => tokenAvailable(token.id)).toBe(50_000);
  });
});
