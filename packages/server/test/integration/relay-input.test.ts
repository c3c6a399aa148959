import { LogType } from '@tollway/shared';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import { startMockRealtime, type MockRealtime } from '../support/mock-realtime.js';
import { partialUpload } from '../support/raw-socket.js';

const MODEL = 'input-model';
const DEAD = 'dead-model';

type Answer = { status: number; body: Record<string, any> };

/** A call over a real socket (the hot path for JSON endpoints). */
async function post(base: string, path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await r.text();
  let parsed: Record<string, any>;
  try {
    parsed = JSON.parse(text) as Record<string, any>;
  } catch {
    parsed = { text };
  }
  return { status: r.status, body: parsed };
}

/** `depth` arrays nested in each other. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Writes `first`, then `next(n)` every 300 ms (a space by default); resolves when the server closes the connection. */
function trickle(
  port: number,
  first: string,
  next: (n: number) => string = () => ' ',
): Promise<{ response: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    socket.on('data', (c) => (response += c.toString()));
    socket.on('error', () => undefined);
    socket.write(first);
    let n = 0;
    const drip = setInterval(() => socket.writable && socket.write(next(n++)), 300);
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ response, ms: Date.now() - started });
    });
    setTimeout(() => socket.destroy(), 10_000);
  });
}

/** A body of 100,000 bytes announced after `head` and sent one byte every 300 ms. */
const trickleBody = (port: number, head: string) => trickle(port, `${head}content-length: 100000\r\n\r\n{`);

describe.each(dialects)('relay input validation on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, user: Client, base: string, key: string;
  useGateway(dialect, { user: 'input-user', quota: 30 }, async (gw) => {
    ({ t, mock, root, user, base, key } = gw);
    await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 0.5, [DEAD]: 0.5 }) });
    await root.call('PUT', '/api/option/', { key: 'LogErrorEnabled', value: 'true' });
    await addChannel(root, { name: 'input', key: 'input-key', baseUrl: mock.url, models: MODEL });
  });

  const openai = (body: unknown) =>
    post(base, '/v1/chat/completions', typeof body === 'string' ? body : JSON.stringify(body), {
      authorization: `Bearer ${key}`,
    });
  const anthropic = (body: unknown) =>
    post(base, '/v1/messages', JSON.stringify(body), { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
  const gemini = (body: unknown) =>
    post(base, `/v1beta/models/${MODEL}:generateContent`, JSON.stringify(body), { 'x-goog-api-key': key });
  const errorLogs = async () => {
    await drainWriter(t);
    return t.database.db.kysely
      .selectFrom('logs')
      .select(['content', 'other'])
      .where('user_id', '=', user.userId!)
      .where('type', '=', LogType.Error)
      .execute();
  };
  const channelStatus = async () =>
    (
      await t.database.db.kysely
        .selectFrom('channels')
        .select('status')
        .where('name', '=', 'input')
        .executeTakeFirstOrThrow()
    ).status;
  const messages = [{ role: 'user', content: 'hi' }];

  it('refuses negative, non-finite, fractional and huge token limits with 400 in each protocol, before any upstream call', async () => {
    const before = mock.requests.length;
    for (const bad of [-1000, '-Infinity', 1.5, 1e300, '100', true]) {
      for (const field of ['max_tokens', 'max_completion_tokens']) {
        const r = await openai({ model: MODEL, messages, [field]: bad });
        expect(r.status, `${field}=${String(bad)}`).toBe(400);
        expect(r.body.error).toMatchObject({
          type: 'invalid_request_error',
          param: field,
          message: expect.stringContaining(field),
        });
      }
      const a = await anthropic({ model: MODEL, max_tokens: bad, messages });
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') },
      });
      const g = await gemini({
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        generationConfig: { maxOutputTokens: bad },
      });
      expect(g.status).toBe(400);
      expect(g.body).toEqual({
        error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('maxOutputTokens') },
      });
      const resp = await post(
        base,
        '/v1/responses',
        JSON.stringify({ model: MODEL, input: 'hi', max_output_tokens: bad }),
        { authorization: `Bearer ${key}` },
      );
      expect(resp.status).toBe(400);
      expect(resp.body.error).toMatchObject({ param: 'max_output_tokens' });
    }
    for (const n of [0, -1, 2.5, 1000])
      expect((await openai({ model: MODEL, messages, n })).body.error?.param).toBe('n');
    expect(mock.requests.length).toBe(before);
  });

  it('a user with 30 quota cannot shrink the reservation with a negative limit; a larger limit is clamped to the balance', async () => {
    const before = mock.requests.length;
    for (let i = 0; i < 3; i++) expect((await openai({ model: MODEL, messages, max_tokens: -1000 })).status).toBe(400);
    expect(mock.requests.length).toBe(before);
    // 100 tokens at ratio 0.5 need more than 30 quota: the upstream is sent the output the 30 pay for (issue 31).
    const over = await openai({ model: MODEL, messages, max_tokens: 100 });
    expect(over.status).toBe(200);
    const sent = mock.requests.at(-1)!.body.max_tokens as number;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThan(60);
    await root.call('PUT', '/api/user/', { id: user.userId, quota: 5_000_000 });
  });

  it('null entries, wrong types and deep nesting are 400s: not retried, no channel error, nothing sent upstream', async () => {
    const before = mock.requests.length;
    const deep = `{"model":"${MODEL}","messages":${nested(10_000)}}`;
    const cases: [string, () => Promise<Answer>][] = [
      ['deep messages', () => openai(deep)],
      ['messages [null]', () => openai({ model: MODEL, messages: [null] })],
      ['messages as a string', () => openai({ model: MODEL, messages: 'hi' })],
      ['role as a number', () => openai({ model: MODEL, messages: [{ role: 1, content: 'hi' }] })],
      ['content [null]', () => openai({ model: MODEL, messages: [{ role: 'user', content: [null] }] })],
      [
        'tool_calls [null]',
        () => openai({ model: MODEL, messages: [{ role: 'assistant', content: null, tool_calls: [null] }] }),
      ],
      ['temperature as a string', () => openai({ model: MODEL, messages, temperature: 'hot' })],
      ['stream as a string', () => openai({ model: MODEL, messages, stream: 'yes' })],
      ['model as an object', () => openai({ model: { name: MODEL }, messages })],
      ['a huge model name', () => openai({ model: 'm'.repeat(100_000), messages })],
      ['anthropic messages [null]', () => anthropic({ model: MODEL, max_tokens: 5, messages: [null] })],
      ['anthropic deep', () => anthropic({ model: MODEL, max_tokens: 5, messages: JSON.parse(nested(500)) })],
      ['gemini contents [null]', () => gemini({ contents: [null] })],
      ['gemini parts [null]', () => gemini({ contents: [{ role: 'user', parts: [null] }] })],
      ['gemini without contents', () => gemini({})],
    ];
    for (const [label, call] of cases) {
      const r = await call();
      expect(r.status, label).toBe(400);
    }
    expect(mock.requests.length).toBe(before);
    expect(await errorLogs()).toEqual([]);
    expect(await channelStatus()).toBe(1);
  });

  it('tells callers “upstream request failed” for an unreachable upstream; the address is in the administrators’ log only', async () => {
    await root.call('PUT', '/api/user/', { id: user.userId, quota: 5_000_000 });
    await addChannel(root, { name: 'dead', key: 'dead-key', baseUrl: 'http://127.0.0.1:1', models: DEAD });
    for (const stream of [false, true]) {
      const r = await openai({ model: DEAD, messages, stream });
      expect(r.status).toBe(502);
      expect(r.body.error.message).toBe('upstream request failed');
      expect(JSON.stringify(r.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
      const a = await anthropic({ model: DEAD, max_tokens: 5, messages, stream });
      expect(a.status).toBe(502);
      expect(JSON.stringify(a.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    }
    const logs = await errorLogs();
    expect(logs.length).toBeGreaterThan(0);
    for (const l of logs) expect(l.content).toBe('upstream request failed');
    expect(JSON.parse(logs[0]!.other!).admin_info.error_detail).toMatch(/ECONNREFUSED 127\.0\.0\.1:1/);
    // The user's own log view has neither.
    const mine = await user.call<{ items: { content: string; other: string }[] }>('GET', '/api/log/self/?type=6');
    expect(mine.body.data!.items.length).toBeGreaterThan(0);
    expect(JSON.stringify(mine.body.data!.items)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    const admins = await root.call<{ items: { other: string }[] }>('GET', `/api/log/?type=6&username=${'input-user'}`);
    expect(JSON.stringify(admins.body.data!.items)).toMatch(/ECONNREFUSED/);
    // The realtime WebSocket refuses its upgrade the same way.
    const refused = await new Promise<{ status: number; body: string }>((resolve) => {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/realtime?model=${DEAD}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      ws.on('error', () => undefined);
    });
    expect(refused.status).toBe(502);
    expect(refused.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    expect(JSON.parse(refused.body).error.message).toBe('upstream request failed');
  });

  it('checks the key before reading the body: a bad key gets 401 while a 20 MB upload has barely started', async () => {
    const port = Number(new URL(base).port);
    for (const [path, auth, type] of [
      ['/v1/chat/completions', 'authorization: Bearer sk-wrong', 'application/json'],
      ['/v1beta/models/x:generateContent', 'x-goog-api-key: wrong', 'application/json'],
      ['/v1/messages/count_tokens', 'x-api-key: wrong', 'application/json'],
      ['/v1/audio/transcriptions', 'authorization: Bearer sk-wrong', 'multipart/form-data; boundary=x'],
      ['/v1/videos', 'authorization: Bearer sk-wrong', 'application/json'],
      ['/v1/videos/video_x/remix', 'authorization: Bearer sk-wrong', 'application/json'],
    ]) {
      const r = await partialUpload(
        port,
        `POST ${path} HTTP/1.1\r\nhost: x\r\n${auth}\r\ncontent-type: ${type}\r\n`,
        20 * 1024 * 1024,
        '{"model":',
        3000,
      );
      expect(r.response, path).toMatch(/^HTTP\/1\.1 401/);
      expect(r.ms, path).toBeLessThan(3000);
    }
  });
});

describe('request timeouts on a real socket', () => {
  let mock: MockUpstream, root: Client, base: string, key: string;
  useGateway(
    'sqlite',
    {
      user: 'slow-user',
      quota: 5_000_000,
      env: { HTTP_BODY_IDLE_TIMEOUT: '1', HTTP_REQUEST_TIMEOUT: '3', HTTP_HEADERS_TIMEOUT: '2' },
    },
    async (gw) => {
      ({ mock, root, base, key } = gw);
      await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 0.5 }) });
      await addChannel(root, { name: 'slow', key: 'slow-key', baseUrl: mock.url, models: MODEL });
    },
  );
  const port = () => Number(new URL(base).port);
  const head = (k: string) =>
    `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${k}\r\ncontent-type: application/json\r\n`;

  it('drops a body that stops arriving (HTTP_BODY_IDLE_TIMEOUT)', async () => {
    const r = await partialUpload(port(), head(key), 1000, '{"model":"', 6000);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(900);
    expect(r.ms).toBeLessThan(3000);
    expect(r.response).not.toMatch(/^HTTP\/1\.1 2/);
  });

  it('answers 408 to a body trickled a byte at a time past HTTP_REQUEST_TIMEOUT', async () => {
    const result = await trickleBody(port(), head(key));
    expect(result.response).toMatch(/^HTTP\/1\.1 408/);
    expect(result.ms).toBeGreaterThanOrEqual(2900);
    expect(result.ms).toBeLessThan(6000);
  });

  it('answers 408 to headers trickled past HTTP_HEADERS_TIMEOUT', async () => {
    const result = await trickle(
      port(),
      'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n',
      (n) => `x-slow-${n}: 1\r\n`,
    );
    expect(result.response).toMatch(/^HTTP\/1\.1 408/);
    expect(result.ms).toBeGreaterThanOrEqual(1900);
    expect(result.ms).toBeLessThan(5000);
  });

  it('holds the same limits on the routes Fastify serves: console, count_tokens, multipart and task submits', async () => {
    const routes: [string, string, string][] = [
      ['/api/user/login', '', 'application/json'],
      ['/v1/messages/count_tokens', `x-api-key: ${key}\r\n`, 'application/json'],
      ['/v1/audio/transcriptions', `authorization: Bearer ${key}\r\n`, 'multipart/form-data; boundary=x'],
      ['/mj/submit/imagine', `authorization: Bearer ${key}\r\n`, 'application/json'],
    ];
    for (const [path, auth, type] of routes) {
      const h = `POST ${path} HTTP/1.1\r\nhost: x\r\n${auth}content-type: ${type}\r\n`;
      const stalled = await partialUpload(port(), h, 1000, '--x\r\n', 6000);
      expect(stalled.closed, path).toBe(true);
      expect(stalled.ms, path).toBeGreaterThanOrEqual(900);
      expect(stalled.ms, path).toBeLessThan(3000);
      expect(stalled.response, path).not.toMatch(/^HTTP\/1\.1 2/);
      const trickled = await trickleBody(port(), h);
      expect(trickled.response, path).toMatch(/^HTTP\/1\.1 408/);
      expect(trickled.ms, path).toBeGreaterThanOrEqual(2900);
      expect(trickled.ms, path).toBeLessThan(6000);
    }
  });

  it('lets an answer stream for longer than every request timeout', async () => {
    mock.behaviors.set('slow-key', { pieces: Array.from({ length: 12 }, (_, i) => `p${i} `), chunkDelayMs: 400 });
    const started = Date.now();
    const r = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await r.text();
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThan(4000);
    expect(text).toContain('p11');
    expect(text).toContain('[DONE]');
    mock.behaviors.delete('slow-key');
  });
});

describe.each(dialects)('realtime session parameters and timeouts on %s', (dialect) => {
  let mock: MockRealtime, root: Client, base: string, key: string;
  useGateway(
    dialect,
    {
      user: 'rt-input-user',
      quota: 5_000_000,
      mock: startMockRealtime,
      env: { HTTP_BODY_IDLE_TIMEOUT: '1', HTTP_REQUEST_TIMEOUT: '2', HTTP_HEADERS_TIMEOUT: '1' },
    },
    async (gw) => {
      ({ mock, root, base, key } = gw);
      await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'rt-model': 1 }) });
      await addChannel(root, { name: 'rt', key: 'rt-key', baseUrl: mock.url, models: 'rt-model' });
    },
  );

  it('answers bad session.update / response.create limits with an error event and passes none of them on; the session outlives the request timeouts', async () => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/realtime?model=rt-model`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const events: Record<string, any>[] = [];
    let arrived = () => undefined as void;
    ws.on('message', (d) => {
      events.push(JSON.parse(d.toString()) as Record<string, any>);
      arrived();
    });
    const waitFor = async (n: number) => {
      while (events.length < n) await new Promise<void>((r) => (arrived = r));
      return events[n - 1]!;
    };
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    expect((await waitFor(1)).type).toBe('session.created');
    const bad: [unknown, string][] = [
      [
        { type: 'session.update', event_id: 'e1', session: { max_response_output_tokens: -5 } },
        'session.max_response_output_tokens',
      ],
      [{ type: 'response.create', response: { max_output_tokens: '-Infinity' } }, 'response.max_output_tokens'],
      [{ type: 'response.create', response: { max_output_tokens: 2.5 } }, 'response.max_output_tokens'],
      [{ type: 'session.update', session: null }, 'session'],
      [{ type: 'session.update', session: { temperature: 'hot' } }, 'session.temperature'],
    ];
    for (const [event, param] of bad) {
      ws.send(JSON.stringify(event));
      const e = await waitFor(events.length + 1);
      expect(e).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', param } });
    }
    ws.send('{"type":"session.update",');
    expect((await waitFor(events.length + 1)).error.message).toContain('not valid JSON');
    // Longer than every request timeout: the upgraded socket is not an HTTP request any more.
    await new Promise((r) => setTimeout(r, 3000));
    ws.send(JSON.stringify({ type: 'session.update', session: { max_response_output_tokens: 'inf' } }));
    ws.send(JSON.stringify({ type: 'response.create', response: { max_output_tokens: 100 } }));
    while (!events.some((e) => e.type === 'response.done')) await new Promise<void>((r) => (arrived = r));
    expect(mock.connections.at(-1)!.received).toEqual(['session.update', 'response.create']);
    ws.close();
  });
});
