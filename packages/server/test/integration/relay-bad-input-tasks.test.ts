import net from 'node:net';
import { ChannelType, LogType } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { bodyText, DEEP, nestedText, sweepHostileBodies } from '../support/hostile-bodies.js';
import { startMockMidjourney, type MockMidjourney } from '../support/mock-midjourney.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import { MJ_MODELS, relayTaskRoutes, SUNO_MODELS, uncoveredRoutes, type TaskRoute } from '../support/relay-routes.js';

const PRICE = 0.01;
const MAX_PROMPT = 8192;
const DEADLINE_MS = 10_000;
const POLL_PAUSE_MS = 50;

/** A finished imagine task of the sweep's caller: change, action, modal and video act on it. */
let origin = '';

/** Midjourney under every mode prefix, then Suno (shared with the permission matrix). */
const taskRoutes: TaskRoute[] = relayTaskRoutes(() => origin);

const brokenBodies = ['', '{"prompt":', '[1,2,3]', '"text"', 'null', '42', '{"prompt": "x", }', nestedText(10_000)];

/** Free-text fields: any string up to the route's length limit goes upstream as the caller wrote it. */
const MJ_TEXT = new Set(['notifyHook', 'state', 'base64', 'sourceBase64', 'targetBase64', 'image', 'motion']);
const SUNO_TEXT: Record<string, number> = {
  prompt: 10_000,
  gpt_description_prompt: 10_000,
  mv: 200,
  title: 200,
  tags: 1000,
  model: 200,
};

/** Values of the hostile list that a field does accept (the sweep leaves those out). */
function accepted(route: TaskRoute, field: string, v: unknown): boolean {
  if (route.protocol === 'mj') {
    if (MJ_TEXT.has(field)) return typeof v === 'string';
    // Fields the gateway does not read go upstream as sent, at most nested as deep as any relay body.
    if (field === 'extra') return v !== DEEP;
    if (field === 'prompt')
      return typeof v === 'string' && v.length <= MAX_PROMPT && (!route.path.endsWith('/shorten') || v.trim() !== '');
    return false;
  }
  if (field in SUNO_TEXT) return typeof v === 'string' && v.length <= SUNO_TEXT[field]!;
  // continue_at is any finite non-negative number (a position in seconds).
  if (field === 'continue_at') return typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (field === 'make_instrumental' || field === 'customMode') return typeof v === 'boolean';
  return false;
}

/**
 * The bad-input sweep over the task relay routes (Midjourney under every mode prefix, Suno): hostile bodies are a
 * 4xx in the route's own shape; never a 5xx, never a call to the upstream, never a channel error. With
 * relay-bad-input.test.ts (the /v1, /v1beta and /pg routes) every POST relay route is swept.
 */
describe('bad input over every task relay route', () => {
  let t: TestApp, mj: MockMidjourney, suno: MockSuno, root: Client, base: string, key: string;
  // The poller is left to the test: its list-by-condition calls to the mock would count as calls the sweep made.
  const env = { TASK_POLL_INTERVAL_MS: '3600000' };
  const gw = useGateway<MockMidjourney>(
    'sqlite',
    { env, mock: () => startMockMidjourney(), user: 'task-sweep-user', quota: 500_000_000 },
    async (g) => {
      ({ t, mock: mj, root, base, key } = g);
      suno = await startMockSuno();
      const prices = Object.fromEntries([...MJ_MODELS.split(','), ...SUNO_MODELS.split(',')].map((m) => [m, PRICE]));
      await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify(prices) });
      await root.call('PUT', '/api/option/', { key: 'LogErrorEnabled', value: 'true' });
      await addChannel(root, {
        name: 'sweep-mj',
        type: ChannelType.Midjourney,
        key: mj.secret,
        baseUrl: mj.url,
        models: MJ_MODELS,
      });
      await addChannel(root, {
        name: 'sweep-suno',
        type: ChannelType.SunoAPI,
        key: MOCK_SUNO_KEY,
        baseUrl: suno.url,
        models: SUNO_MODELS,
      });
      origin = (await send(taskRoutes[0]!, JSON.stringify({ prompt: 'the origin' }))).json!.result as string;
      const end = Date.now() + DEADLINE_MS;
      while ((await fetchTask(origin)).status !== 'SUCCESS') {
        if (Date.now() > end) throw new Error('the origin task did not finish');
        await t.runtime.taskPoller.pass(Math.floor(Date.now() / 1000));
        await new Promise((r) => setTimeout(r, POLL_PAUSE_MS));
      }
    },
  );
  afterAll(async () => suno?.close());
  void gw;

  const headersFor = (route: TaskRoute, k = key): Record<string, string> => ({
    'content-type': 'application/json',
    ...(route.noKey ? {} : { authorization: `Bearer ${k}` }),
  });
  const parse = (text: string): Record<string, any> | undefined => {
    try {
      return JSON.parse(text) as Record<string, any>;
    } catch {
      return undefined;
    }
  };
  async function send(route: TaskRoute, body: string, headers = headersFor(route)) {
    const r = await fetch(`${base}${route.path}`, { method: 'POST', headers, body });
    const text = await r.text();
    return { status: r.status, json: parse(text), text };
  }
  async function fetchTask(id: string): Promise<{ status: string }> {
    return (
      await fetch(`${base}/mj/task/${id}/fetch`, { headers: { authorization: `Bearer ${key}` } })
    ).json() as Promise<{ status: string }>;
  }
  const upstreamCalls = () => mj.requests.filter((r) => r.method === 'POST').length + suno.submits.length;

  /** A 4xx in the route's shape: midjourney-proxy's numeric code and description, Suno's code, message and data. */
  function expectRefusal(label: string, route: TaskRoute, r: Awaited<ReturnType<typeof send>>, failures: string[]) {
    const shapeOk =
      route.protocol === 'mj'
        ? typeof r.json?.code === 'number' && typeof r.json.description === 'string'
        : typeof r.json?.code === 'string' && typeof r.json.message === 'string' && r.json.data === null;
    if (r.status < 400 || r.status >= 500 || !shapeOk) failures.push(`${label}: ${r.status} ${r.text.slice(0, 160)}`);
  }

  it('covers every POST relay route outside /v1, /v1beta, /pg (swept by relay-bad-input) and /mcp (by mcp-gateway)', () => {
    const served = t.registered
      // MCP's JSON-RPC endpoint answers in its own shape: its hostile bodies are swept in mcp-gateway.test.ts.
      .filter((r) => r.method === 'POST' && !/^\/(api|v1|v1beta|pg)\//.test(r.url) && !/^\/mcp(\/|$)/.test(r.url))
      .map((r) => r.url);
    expect(served.length).toBeGreaterThan(50);
    expect(
      uncoveredRoutes(
        served,
        taskRoutes.map((r) => r.path),
      ),
    ).toEqual([]);
  });

  it('every route accepts its valid body (the sweep starts from bodies that work)', async () => {
    for (const route of taskRoutes) {
      const r = await send(route, JSON.stringify(route.valid()));
      // The notify of an unknown task is refused by design; its valid body is the shape, not the task.
      if (route.noKey) expect(r.status, route.path).toBe(400);
      else expect(r.status, `${route.path}: ${r.text.slice(0, 200)}`).toBeLessThan(300);
    }
  });

  it('answers every hostile body with a 4xx in the route’s shape; the upstream receives none of them', async () => {
    const before = upstreamCalls();
    const { failures, sent } = await sweepHostileBodies({
      routes: taskRoutes,
      brokenBodies,
      accepted,
      bodyWith: (route, field, value) => bodyText({ ...route.valid(), [field]: value }),
      send: (route, body) => send(route, body),
      expectRefusal,
    });
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(1000);
    expect(upstreamCalls()).toBe(before);
  });

  it('recorded no channel error and left both channels enabled', async () => {
    await drainWriter(t);
    expect(
      await t.database.db.kysely.selectFrom('logs').select('content').where('type', '=', LogType.Error).execute(),
    ).toEqual([]);
    const channels = await t.database.db.kysely
      .selectFrom('channels')
      .select(['name', 'status'])
      .where('name', 'like', 'sweep-%')
      .execute();
    expect(channels.map((c) => c.status)).toEqual([1, 1]);
  });

  it('refuses a missing or wrong key on every task route with 401 in its shape, before the body has arrived', async () => {
    const port = Number(new URL(base).port);
    const failures: string[] = [];
    for (const route of taskRoutes.filter((r) => !r.noKey)) {
      for (const k of ['', 'sk-not-a-key']) {
        const auth = k ? `authorization: Bearer ${k}\r\n` : '';
        const r = await partialUpload(
          port,
          `POST ${route.path} HTTP/1.1\r\nhost: x\r\n${auth}content-type: application/json\r\n`,
          1_000_000,
          '{"prompt":',
          3000,
        );
        const json = parse(r.response.slice(r.response.indexOf('\r\n\r\n') + 4));
        if (!r.response.startsWith('HTTP/1.1 401') || r.ms >= 3000)
          failures.push(`${route.path} key '${k}': ${r.ms} ms ${r.response.slice(0, 60)}`);
        expectRefusal(`${route.path} key '${k}'`, route, { status: 401, json, text: r.response }, failures);
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses a missing or wrong key on every GET relay route with 401 (the permission matrix of the relay reads)', async () => {
    // Public reads: metrics, health, and the docs folder's Markdown (the console's /docs pages).
    const publicReads = new Set(['/metrics', '/healthz', '/readyz', '/docs-src/*']);
    // The image proxy serves a stored task's image by its id, as midjourney-proxy does (off unless MjForwardUrlEnabled);
    // /v1/realtime is a WebSocket upgrade, whose key check relay-realtime tests.
    const reads = t.registered.filter(
      (r) =>
        r.method === 'GET' &&
        !r.url.startsWith('/api') &&
        !publicReads.has(r.url) &&
        !r.url.endsWith('/mj/image/:id') &&
        r.url !== '/v1/realtime',
    );
    // The stateful OpenAI APIs a gateway does not hold answer 501 to anyone, before any key.
    const stubbed = new Set(reads.filter((r) => r.url.endsWith('/*')).flatMap((r) => [r.url, r.url.slice(0, -2)]));
    expect(reads.length - stubbed.size).toBeGreaterThanOrEqual(20);
    const failures: string[] = [];
    for (const r of reads) {
      const url = r.url.replace('/*', '/x').replace(/:[^/]+/g, 'x');
      for (const headers of [
        {} as Record<string, string>,
        { authorization: 'Bearer sk-not-a-key', 'x-api-key': 'not-a-key', 'x-goog-api-key': 'not-a-key' },
      ]) {
        const res = await fetch(`${base}${url}`, { headers });
        const text = await res.text();
        const expected = stubbed.has(r.url) ? 501 : 401;
        if (res.status !== expected || parse(text) === undefined)
          failures.push(`GET ${url} ${JSON.stringify(headers).slice(0, 20)}: ${res.status} ${text.slice(0, 80)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

/** A raw request: the head and the first `sent` bytes of a body of `length`; resolves with what the server did. */
function partialUpload(
  port: number,
  head: string,
  length: number,
  sent: string,
  waitMs: number,
): Promise<{ response: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    const done = () => {
      clearTimeout(timer);
      resolve({ response, ms: Date.now() - started });
      socket.destroy();
    };
    socket.on('data', (c) => {
      response += c.toString();
      // The answer is complete once its JSON body has arrived (content-length or not, the test reads one object).
      if (/\r\n\r\n[\s\S]*\}$/.test(response)) done();
    });
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.write(`${head}content-length: ${length}\r\n\r\n${sent}`);
    const timer = setTimeout(done, waitMs);
  });
}
