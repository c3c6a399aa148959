import net from 'node:net';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/beta/realtime/ws';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter } from '../support/gateway.js';
import { startMockRealtime, type MockRealtime } from '../support/mock-realtime.js';

// (100 input − 20 cached + 20 × 0.5 cache ratio + 50 output × 4) × 2.5 model ratio
const PER_RESPONSE = 725;

type Event = { type: string; [k: string]: unknown };

/** A raw `ws` client that keeps every event and lets a test wait for one. */
function rawClient(url: string, protocols: string[] = [], headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, protocols, { headers });
  const events: Event[] = [];
  const taken = new Set<Event>();
  let arrived = () => undefined as void;
  ws.on('message', (data) => {
    events.push(JSON.parse(data.toString()) as Event);
    arrived();
  });
  /** The first event of a type not yet taken, waiting for it if it has not arrived. */
  const next = async (type: string): Promise<Event> => {
    for (;;) {
      const e = events.find((x) => x.type === type && !taken.has(x));
      if (e) {
        taken.add(e);
        return e;
      }
      await new Promise<void>((resolve) => (arrived = resolve));
    }
  };
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return {
    ws,
    events,
    next,
    closed,
    opened: new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject)),
  };
}

/** The realtime WebSocket relay: official SDK and browser-style clients, OpenAI and Azure upstreams, billing per response. */
describe.each(dialects)('realtime relay on %s', (dialect) => {
  let t: TestApp, mock: MockRealtime, root: Client, user: Client, wsBase: string, port: number, key: string;
  useGateway(dialect, { user: 'realtime-user', quota: 1_000_000, mock: startMockRealtime }, async (gw) => {
    ({ t, mock, root, user, key } = gw);
    port = Number(new URL(gw.base).port);
    wsBase = gw.base.replace('http', 'ws');
    await addChannel(root, {
      name: 'rt-openai',
      key: 'rt-key',
      baseUrl: mock.url,
      models: 'gpt-4o-realtime-preview,rt-failover',
    });
    await addChannel(root, {
      name: 'rt-down',
      key: 'down-key',
      baseUrl: mock.url,
      models: 'rt-failover',
      priority: 10,
    });
    await addChannel(root, {
      name: 'rt-azure',
      key: 'az-key',
      baseUrl: mock.url,
      type: 3,
      models: 'gpt-4o-realtime-azure',
      modelMapping: { 'gpt-4o-realtime-azure': 'gpt-4o-realtime' },
    });
    await addChannel(root, {
      name: 'rt-azure-preview',
      key: 'az-key-2',
      baseUrl: mock.url,
      type: 3,
      other: '2024-10-01-preview',
      models: 'gpt-4.1-realtime-azure-preview',
      modelMapping: { 'gpt-4.1-realtime-azure-preview': 'gpt-4.1-realtime' },
    });
    const ratios = {
      'gpt-4o-realtime-preview': 2.5,
      'rt-failover': 2.5,
      'gpt-4o-realtime-azure': 2.5,
      'gpt-4.1-realtime-azure-preview': 2.5,
    };
    await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(ratios) });
    await root.call('PUT', '/api/option/', {
      key: 'CompletionRatio',
      value: JSON.stringify(Object.fromEntries(Object.keys(ratios).map((m) => [m, 4]))),
    });
    await root.call('PUT', '/api/option/', {
      key: 'CacheRatio',
      value: JSON.stringify(Object.fromEntries(Object.keys(ratios).map((m) => [m, 0.5]))),
    });
    await root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '1' });
  });

  /** The consume logs of `model`, committed; `stayOpen`: calls of sessions still running. */
  const logsOf = async (model: string, stayOpen = 0) => {
    await drainWriter(t, stayOpen);
    return t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('model_name', '=', model)
      .where('type', '=', 2)
      .orderBy('id', 'asc')
      .execute();
  };
  const waitFor = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
  };

  it('the official SDK (OpenAIRealtimeWS) talks to an OpenAI channel; each response.done is billed and logged', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${port}/v1` });
    // The SDK always dials wss://; the test server speaks plain ws, so the socket is handed over unencrypted.
    const rt = new OpenAIRealtimeWS(
      { model: 'gpt-4o-realtime-preview', options: { createConnection: () => net.connect(port, '127.0.0.1') } },
      client,
    );
    const created = await new Promise<{ session: { model?: string } }>((resolve) =>
      rt.on('session.created', (e) => resolve(e as never)),
    );
    expect(created.session.model).toBe('gpt-4o-realtime-preview');
    const conn = mock.connections.at(-1)!;
    expect(conn).toMatchObject({ path: '/v1/realtime', query: { model: 'gpt-4o-realtime-preview' } });
    expect(conn.headers).toMatchObject({ authorization: 'Bearer rt-key', 'openai-beta': 'realtime=v1' });
    let text = '';
    rt.on('response.text.delta', (e) => (text += e.delta));
    for (let i = 0; i < 2; i++) {
      const done = new Promise<{ response: { usage?: { input_tokens?: number } } }>((resolve) =>
        rt.once('response.done', (e) => resolve(e as never)),
      );
      rt.send({ type: 'response.create' });
      expect((await done).response.usage?.input_tokens).toBe(100);
    }
    expect(text).toBe('Hello thereHello there');
    rt.close();
    await waitFor(async () => (await logsOf('gpt-4o-realtime-preview')).length === 2);
    const logs = await logsOf('gpt-4o-realtime-preview');
    expect(
      logs.map((l) => ({
        quota: Number(l.quota),
        prompt: l.prompt_tokens,
        completion: l.completion_tokens,
        stream: l.is_stream,
        channel: l.channel_name,
      })),
    ).toEqual(Array(2).fill({ quota: PER_RESPONSE, prompt: 100, completion: 50, stream: 1, channel: 'rt-openai' }));
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ cache_tokens: 20, cache_ratio: 0.5, model_ratio: 2.5 });
  });

  it('a browser-style client authenticates with the key subprotocol; frames pass both ways', async () => {
    const c = rawClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview`, [
      'realtime',
      `openai-insecure-api-key.${key}`,
      'openai-beta.realtime-v1',
    ]);
    await c.opened;
    expect(c.ws.protocol).toBe('realtime');
    await c.next('session.created');
    const conn = mock.connections.at(-1)!;
    // The key never goes upstream; the beta flag becomes OpenAI's header.
    expect(conn.headers['sec-websocket-protocol']).toBeUndefined();
    expect(conn.headers['openai-beta']).toBe('realtime=v1');
    const audio = Buffer.alloc(300_000, 7).toString('base64');
    for (let i = 0; i < 5; i++) c.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio }));
    c.ws.send(JSON.stringify({ type: 'response.create' }));
    await c.next('response.done');
    expect(conn.audioChars).toBe(audio.length * 5);
    expect(conn.received).toEqual([...Array(5).fill('input_audio_buffer.append'), 'response.create']);
    c.ws.close();
    expect(await c.closed).toBe(1005);
  });

  it('a slow client holds the upstream back (backpressure) and still gets every frame', async () => {
    const c = rawClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview`, [], { authorization: `Bearer ${key}` });
    await c.next('session.created');
    const conn = mock.connections.at(-1)!;
    c.ws.pause();
    const count = 48;
    const size = 1024 * 1024;
    c.ws.send(JSON.stringify({ type: 'test.flood', count, size }));
    await waitFor(async () => conn.received.includes('test.flood'));
    await new Promise((r) => setTimeout(r, 500));
    // The gateway stopped reading: most of the flood is still waiting at the upstream, not in the gateway's memory.
    expect(conn.socket!.bufferedAmount).toBeGreaterThan(16 * size);
    c.ws.resume();
    await waitFor(async () => c.events.filter((e) => e.type === 'response.audio.delta').length === count);
    const deltas = c.events.filter((e) => e.type === 'response.audio.delta');
    expect(deltas).toHaveLength(count);
    expect(deltas.every((e) => (e.delta as string).length === size)).toBe(true);
    c.ws.close();
  });

  it('an Azure channel with a preview API version gets the preview URL with deployment and api-version', async () => {
    const c = rawClient(`${wsBase}/v1/realtime?model=gpt-4.1-realtime-azure-preview`, [], {
      authorization: `Bearer ${key}`,
    });
    const created = await c.next('session.created');
    expect(created.session).toMatchObject({ model: 'gpt-41-realtime' });
    expect(mock.connections.at(-1)).toMatchObject({
      path: '/openai/realtime',
      query: { deployment: 'gpt-41-realtime', 'api-version': '2024-10-01-preview' },
      headers: { 'api-key': 'az-key-2' },
    });
    c.ws.close();
  });

  it('an Azure channel gets the GA v1 URL with its deployment as the model, and its api-key', async () => {
    const c = rawClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-azure`, [], { authorization: `Bearer ${key}` });
    await c.next('session.created');
    expect(mock.connections.at(-1)).toMatchObject({
      path: '/openai/v1/realtime',
      query: { model: 'gpt-4o-realtime' },
      headers: { 'api-key': 'az-key' },
    });
    c.ws.send(JSON.stringify({ type: 'response.create' }));
    await c.next('response.done');
    c.ws.close();
    await waitFor(async () => (await logsOf('gpt-4o-realtime-azure')).length === 1);
    const [log] = await logsOf('gpt-4o-realtime-azure');
    expect({ quota: Number(log!.quota), channel: log!.channel_name }).toEqual({
      quota: PER_RESPONSE,
      channel: 'rt-azure',
    });
  });

  it('a refused upstream moves to the next channel; refusals of the caller answer HTTP errors', async () => {
    const c = rawClient(`${wsBase}/v1/realtime?model=rt-failover`, [], { authorization: `Bearer ${key}` });
    await c.next('session.created');
    c.ws.send(JSON.stringify({ type: 'response.create' }));
    await c.next('response.done');
    c.ws.close();
    await waitFor(async () => (await logsOf('rt-failover')).length === 1);
    const [log] = await logsOf('rt-failover');
    expect(log!.channel_name).toBe('rt-openai');
    expect(JSON.parse(log!.other).admin_info.use_channel).toHaveLength(2);

    const refused = async (url: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        ws.on('error', () => undefined);
      });
    const bad = await refused(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview`, {
      authorization: 'Bearer sk-wrong',
    });
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body)).toMatchObject({ error: { code: 'invalid_api_key', type: 'invalid_request_error' } });
    const unknown = await refused(`${wsBase}/v1/realtime?model=no-such-model`, { authorization: `Bearer ${key}` });
    expect(unknown.status).toBe(404);
  });

  it('a token without quota for the next response gets an error event and the session ends', async () => {
    const small = await addToken(t, user.userId!, { remainQuota: 1000 });
    const c = rawClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview`, [], {
      authorization: `Bearer ${small.key}`,
    });
    await c.next('session.created');
    const before = (await logsOf('gpt-4o-realtime-preview', 1)).length;
    c.ws.send(JSON.stringify({ type: 'response.create' }));
    await c.next('response.done');
    const error = await c.next('error');
    expect(error.error).toMatchObject({ type: 'insufficient_quota', message: 'this API token has no quota left' });
    expect(await c.closed).toBe(1008);
    await waitFor(async () => (await logsOf('gpt-4o-realtime-preview')).length === before + 1);
    const log = (await logsOf('gpt-4o-realtime-preview')).at(-1)!;
    expect({ quota: Number(log.quota), token: log.token_id }).toEqual({ quota: PER_RESPONSE, token: small.id });
    const row = await t.database.db.kysely
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', small.id)
      .executeTakeFirstOrThrow();
    expect({ remain: Number(row.remain_quota), used: Number(row.used_quota) }).toEqual({
      remain: 1000 - PER_RESPONSE,
      used: PER_RESPONSE,
    });
  });

  it("an auto token's session runs in the first auto group serving the model (new-api's auto group)", async () => {
    const options = {
      UserUsableGroups: JSON.stringify({ default: 'default', vip: 'vip', auto: 'auto' }),
      AutoGroups: JSON.stringify(['default', 'vip']),
      GroupRatio: JSON.stringify({ default: 1, vip: 2 }),
    };
    for (const [k, value] of Object.entries(options))
      expect((await root.call('PUT', '/api/option/', { key: k, value })).body.success, k).toBe(true);
    await addChannel(root, {
      name: 'rt-vip',
      key: 'rt-vip-key',
      baseUrl: mock.url,
      models: 'gpt-4o-realtime-preview',
      group: 'vip',
    });
    const made = await user.call<{ key: string }[]>('POST', '/api/token/', { name: 'rt-auto', group: 'auto' });
    expect(made.body.success, made.body.message).toBe(true);
    const c = rawClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview`, [], {
      authorization: `Bearer ${made.body.data![0]!.key}`,
    });
    await c.next('session.created');
    // default has the OpenAI channel: the session is served there, the first auto group with the model.
    expect(mock.connections.at(-1)!.headers.authorization).toBe('Bearer rt-key');
    c.ws.close();
    await c.closed;
    // With vip first in AutoGroups, vip's channel serves it.
    await root.call('PUT', '/api/option/', { key: 'AutoGroups', value: JSON.stringify(['vip', 'default']) });
    const d = rawClient(`${wsBase}/v1/realtime?model=gpt-4o-realtime-preview`, [], {
      authorization: `Bearer ${made.body.data![0]!.key}`,
    });
    await d.next('session.created');
    expect(mock.connections.at(-1)!.headers.authorization).toBe('Bearer rt-vip-key');
    d.ws.close();
    await d.closed;
  });
});
