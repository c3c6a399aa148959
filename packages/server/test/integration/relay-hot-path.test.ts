import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

/** A raw HTTP POST (chunked when `chunked`), so sizes and framing are under the test's control. */
function post(
  base: string,
  path: string,
  body: Buffer | string,
  headers: Record<string, string>,
  chunked = false,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...headers,
          ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    if (chunked) {
      // Several writes without a length: the server sees a chunked body and must count as it reads.
      const buf = Buffer.from(body);
      for (let i = 0; i < buf.length; i += 256 * 1024) req.write(buf.subarray(i, i + 256 * 1024));
      req.end();
    } else req.end(body);
  });
}

/**
 * The relay's JSON endpoints are served by the hot-path entry ahead of Fastify (real HTTP) and by the same
 * table's Fastify routes (inject): both answer alike, size limits and framing hold, and what it declines reaches Fastify.
 */
describe('relay hot-path entry', () => {
  let t: TestApp, mock: MockUpstream, root: Client, user: Client, base: string, key: string;
  useGateway(
    'sqlite',
    {
      user: 'hot-user',
      quota: 5_000_000,
      env: { MAX_REQUEST_BODY_MB: '1' },
      mock: () => startMockUpstream({ record: false }),
    },
    async (gw) => {
      ({ t, mock, root, user, base, key } = gw);
      await addChannel(root, { name: 'm', key: 'k', baseUrl: mock.url, models: 'gpt-4o-mini' });
    },
  );

  const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

  it('answers the same through the hot path and through the Fastify route, and bills both', async () => {
    const hot = await post(base, '/v1/chat/completions', chat, { authorization: `Bearer ${key}` });
    const viaFastify = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: chat,
    });
    expect(hot.status).toBe(200);
    expect(viaFastify.statusCode).toBe(200);
    const [a, b] = [JSON.parse(hot.body), viaFastify.json()];
    expect(a.choices[0].message.content).toBe(b.choices[0].message.content);
    expect(a.usage).toEqual(b.usage);
    await drainWriter(t);
    const logs = await t.database.db.kysely
      .selectFrom('logs')
      .select(['quota', 'prompt_tokens'])
      .where('user_id', '=', user.userId!)
      .where('type', '=', 2)
      .execute();
    expect(logs).toHaveLength(2);
    expect(Number(logs[0]!.quota)).toBeGreaterThan(0);
    expect(Number(logs[0]!.quota)).toBe(Number(logs[1]!.quota));
  });

  it('refuses a body over the limit with 413 in the caller’s shape, by its length or while counting a chunked body', async () => {
    const big = JSON.stringify({
      model: 'gpt-4o-mini',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024 + 10) }],
    });
    const byLength = await post(base, '/v1/messages', big, { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
    expect(byLength.status).toBe(413);
    expect(JSON.parse(byLength.body)).toMatchObject({
      type: 'error',
      error: { type: expect.any(String), message: 'request body is too large' },
    });
    const chunked = await post(base, '/v1/chat/completions', big, { authorization: `Bearer ${key}` }, true);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({
      error: { message: 'request body is too large', type: 'invalid_request_error' },
    });
    // Nothing was reserved or logged for them.
    await drainWriter(t);
    const logs = await t.database.db.kysely
      .selectFrom('logs')
      .select('id')
      .where('user_id', '=', user.userId!)
      .execute();
    expect(logs).toHaveLength(2);
  });

  it('reads a chunked body under the limit whole, and the Gemini key from the query string', async () => {
    const chunkedOk = await post(
      base,
      '/v1/chat/completions',
      JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'y'.repeat(600 * 1024) }] }),
      { authorization: `Bearer ${key}` },
      true,
    );
    expect(chunkedOk.status).toBe(200);
    const gemini = await post(
      base,
      `/v1beta/models/gpt-4o-mini:generateContent?key=${key}`,
      JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      {},
    );
    expect(gemini.status).toBe(200);
    expect(JSON.parse(gemini.body).candidates[0].content.parts[0].text).toEqual(expect.any(String));
    const noKey = await post(base, '/v1beta/models/gpt-4o-mini:generateContent', '{}', {});
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.body)).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });

  it('answers bad JSON in the caller’s shape and leaves other paths to Fastify', async () => {
    const bad = await post(base, '/v1/chat/completions', '{"model":', { authorization: `Bearer ${key}` });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe('invalid_body');
    // A trailing slash is not in the table: Fastify's route (ignoreTrailingSlash) serves it.
    expect((await post(base, '/v1/chat/completions/', chat, { authorization: `Bearer ${key}` })).status).toBe(200);
    const unknown = await post(base, '/v1/not-a-route', '{}', {});
    expect(unknown.status).toBe(404);
  });
});
