import { ChannelType, LogType } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { bodyText, malformedMessageFields, nestedText, sweepHostileBodies } from '../support/hostile-bodies.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import { MOCK_OPENAI_VIDEO_KEY, startMockVideo, type MockVideo } from '../support/mock-video.js';
import {
  GEMINI_METHODS,
  GEMINI_PREFIXES,
  MULTIPART_ROUTES,
  RELAY_MODEL,
  RELAY_VIDEO_MODEL,
  relayJsonRoutes,
  STUBBED_PREFIXES,
  uncoveredRoutes,
  videoRemixRoute,
  type RelayRoute,
} from '../support/relay-routes.js';

const MODEL = RELAY_MODEL;
const VIDEO_MODEL = RELAY_VIDEO_MODEL;

/** Every JSON relay route, with the fields that carry content, limits and flags (shared with the permission matrix). */
const jsonRoutes = relayJsonRoutes();
const MULTIPART = MULTIPART_ROUTES;

const setPath = (body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> => {
  const copy = structuredClone(body);
  const keys = path.split('.');
  let at: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
  at[keys.at(-1)!] = value;
  return copy;
};

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const TEXT_FIELDS = new Set(['prompt', 'input', 'query', 'instructions', 'system', 'size', 'quality', 'voice']);

/** Values of the hostile list that a field does accept (the sweep leaves those out). */
function accepted(route: RelayRoute, path: string, v: unknown): boolean {
  // countTokens' generateContentRequest is checked as a generateContent body.
  const field = path.replace(/^generateContentRequest\./, '');
  if (typeof v === 'string' && TEXT_FIELDS.has(field)) return true;
  if (field === 'stream') return v === true;
  // Any short name is a model count_tokens can count for (it calls no upstream).
  if (field === 'model' && route.path.endsWith('count_tokens')) return typeof v === 'string' && v.length <= 256;
  if (['stream_options', 'generationConfig', 'systemInstruction', 'metadata'].includes(field)) return isObject(v);
  // A video's reference image is a URL or base64 data of any length; its mode a short name the upstream judges.
  if (field === 'image') return typeof v === 'string';
  if (field === 'mode') return typeof v === 'string' && v.length <= 64;
  if (field === 'temperature') return typeof v === 'number' && v >= 0 && v <= 2;
  if (field === 'speed') return typeof v === 'number' && v >= 0.25 && v <= 4;
  // Token arrays are prompts and inputs of the OpenAI endpoints.
  if (
    (field === 'prompt' || field === 'input') &&
    route.path !== '/v1/responses' &&
    route.protocol === 'openai' &&
    !route.path.includes('images') &&
    !route.path.includes('speech')
  )
    return Array.isArray(v) && v.every(Array.isArray);
  return false;
}

/** Bodies that are not a JSON object of the route at all. */
const brokenBodies = [
  '',
  '{"model":',
  '[1,2,3]',
  '"text"',
  'null',
  '42',
  '{"model": "x", }',
  nestedText(10_000),
  `{"a":${nestedText(100)}}`,
];

/**
 * The bad-input sweep over every relay route: hostile bodies (malformed JSON, wrong types, null entries,
 * negative / non-finite / huge limits, deep nesting, huge strings in wrong places, wrong content types) must be
 * a 4xx in the caller's protocol; never a 5xx, never a call to the upstream, never a channel error.
 */
describe('bad input over every relay route', () => {
  let t: TestApp, mock: MockUpstream, video: MockVideo, root: Client, user: Client, base: string, key: string;
  useGateway('sqlite', { user: 'sweep-user', quota: 500_000_000 }, async (gw) => {
    ({ t, mock, root, user, base, key } = gw);
    video = await startMockVideo();
    await addChannel(root, {
      name: 'sweep-video',
      key: MOCK_OPENAI_VIDEO_KEY,
      baseUrl: video.url,
      models: VIDEO_MODEL,
      type: ChannelType.Sora,
    });
    await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 1 }) });
    await root.call('PUT', '/api/option/', {
      key: 'ModelPrice',
      value: JSON.stringify({ [MODEL]: 0.001, [VIDEO_MODEL]: 0.001 }),
    });
    await root.call('PUT', '/api/option/', { key: 'LogErrorEnabled', value: 'true' });
    await addChannel(root, { name: 'sweep', key: 'sweep-key', baseUrl: mock.url, models: MODEL });
    // A finished video to remix: the remix route is swept like the others.
    const created = (await (
      await fetch(`${base}/v1/videos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: VIDEO_MODEL, prompt: 'hi' }),
      })
    ).json()) as { id: string };
    for (let i = 0; i < 3; i++) await t.runtime.taskPoller.job.runOnce();
    jsonRoutes.push(videoRemixRoute(created.id));
  });
  afterAll(async () => video?.close());

  const headersFor = (route: RelayRoute, contentType = 'application/json'): Record<string, string> => {
    const h: Record<string, string> = { 'content-type': contentType };
    if (route.auth === 'session') Object.assign(h, { cookie: user.cookie, 'new-api-user': String(user.userId) });
    else if (route.protocol === 'anthropic') Object.assign(h, { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
    else if (route.protocol === 'gemini') h['x-goog-api-key'] = key;
    else h.authorization = `Bearer ${key}`;
    return h;
  };
  const send = async (route: RelayRoute, body: string, contentType?: string) => {
    const r = await fetch(`${base}${route.path}`, { method: 'POST', headers: headersFor(route, contentType), body });
    const text = await r.text();
    let json: Record<string, any> | undefined;
    try {
      json = JSON.parse(text) as Record<string, any>;
    } catch {
      json = undefined;
    }
    return { status: r.status, json, text };
  };

  /** A 4xx in the route's protocol (OpenAI error object, Anthropic error event, Gemini status). */
  function expectRefusal(label: string, route: RelayRoute, r: Awaited<ReturnType<typeof send>>, failures: string[]) {
    const shapeOk =
      route.protocol === 'openai'
        ? typeof r.json?.error?.message === 'string' &&
          typeof r.json.error.type === 'string' &&
          'param' in r.json.error &&
          'code' in r.json.error
        : route.protocol === 'anthropic'
          ? r.json?.type === 'error' &&
            typeof r.json.error?.type === 'string' &&
            typeof r.json.error.message === 'string'
          : r.json?.error?.code === r.status &&
            typeof r.json.error.status === 'string' &&
            typeof r.json.error.message === 'string';
    const invalidArgument =
      route.protocol !== 'gemini' || r.status !== 400 || r.json?.error?.status === 'INVALID_ARGUMENT';
    if (r.status < 400 || r.status >= 500 || !shapeOk || !invalidArgument)
      failures.push(`${label}: ${r.status} ${r.text.slice(0, 160)}`);
  }

  // The task routes (Midjourney, Suno) are swept in their own shapes by relay-bad-input-tasks.test.ts.
  it('covers every POST relay route the server registers, and every Gemini method under the wildcard routes', () => {
    const covered = [...jsonRoutes.map((r) => r.path), ...MULTIPART];
    const served = t.registered
      .filter(
        (r) =>
          r.method === 'POST' &&
          /^\/(v1|v1beta|pg)\//.test(r.url) &&
          !STUBBED_PREFIXES.some((p) => r.url === p || r.url === `${p}/*`),
      )
      .map((r) => r.url);
    expect(served.length).toBeGreaterThan(15);
    expect(served).toEqual(expect.arrayContaining(GEMINI_PREFIXES.map((p) => `${p}*`)));
    expect(uncoveredRoutes(served, covered)).toEqual([]);
  });

  it('the Gemini methods swept are exactly those the wildcard routes dispatch (probed with Google’s method names)', async () => {
    // Google's methods of models/* (v1beta and the older v1beta2/v1beta3 names): any the gateway does not dispatch is its 404.
    const google = [
      ...GEMINI_METHODS,
      'batchGenerateContent',
      'asyncBatchEmbedContent',
      'generateAnswer',
      'predict',
      'predictLongRunning',
      'generateMessage',
      'generateText',
      'embedText',
      'batchEmbedText',
      'countMessageTokens',
      'countTextTokens',
      'get',
      'list',
    ];
    const dispatched: string[] = [];
    for (const prefix of GEMINI_PREFIXES)
      for (const method of google) {
        const route: RelayRoute = {
          path: `${prefix}${MODEL}:${method}`,
          protocol: 'gemini',
          valid: {},
          fields: [],
          auth: 'key',
        };
        const r = await send(route, '{}');
        expect(r.status, `${route.path}: ${r.text.slice(0, 160)}`).toBeLessThan(500);
        const notServed =
          r.status === 404 && /is not a method this gateway serves/.test(String(r.json?.error?.message));
        if (!notServed) dispatched.push(`${prefix}${method}`);
      }
    expect(dispatched.sort()).toEqual(GEMINI_PREFIXES.flatMap((p) => GEMINI_METHODS.map((m) => `${p}${m}`)).sort());
  });

  it('every route accepts its valid body (the sweep starts from bodies that work)', async () => {
    for (const route of jsonRoutes) {
      const r = await send(route, JSON.stringify(route.valid));
      expect(r.status, `${route.label ?? route.path}: ${r.text.slice(0, 200)}`).toBeLessThan(300);
    }
  });

  it('answers every hostile body with a 4xx in the caller’s protocol; the upstream receives none of them', async () => {
    const before = mock.requests.length;
    const videoBefore = video.submits.length;
    const { failures, sent } = await sweepHostileBodies({
      routes: jsonRoutes,
      brokenBodies,
      accepted,
      bodyWith: (route, field, value) => bodyText(setPath(route.valid, field, value)),
      send: (route, body) => send(route, body),
      malformed: (route: RelayRoute) => malformedMessageFields(route),
      expectRefusal,
    });
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(700);
    expect(mock.requests.length).toBe(before);
    expect(video.submits.length).toBe(videoBefore);
  });

  it('an Anthropic message with content null is Anthropic’s own 400 invalid_request_error, before any upstream', async () => {
    const before = mock.requests.length;
    const route = jsonRoutes.find((r) => r.path === '/v1/messages')!;
    const r = await send(
      route,
      JSON.stringify({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: null }] }),
    );
    expect({ status: r.status, body: r.json }).toEqual({
      status: 400,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'invalid request body: messages[0].content must be a string or an array of content parts',
        },
      },
    });
    expect(mock.requests.length).toBe(before);
  });

  it('refuses wrong content types: JSON to the multipart endpoints, a form to the JSON ones', async () => {
    const failures: string[] = [];
    for (const path of MULTIPART) {
      const route: RelayRoute = { path, protocol: 'openai', valid: {}, fields: [], auth: 'key' };
      expectRefusal(`${path} json`, route, await send(route, JSON.stringify({ model: MODEL, prompt: 'x' })), failures);
      expectRefusal(
        `${path} broken multipart`,
        route,
        await send(route, '--x\r\nnonsense', 'multipart/form-data; boundary=x'),
        failures,
      );
      expectRefusal(
        `${path} no model`,
        route,
        await send(
          route,
          '--x\r\ncontent-disposition: form-data; name="prompt"\r\n\r\nhi\r\n--x--\r\n',
          'multipart/form-data; boundary=x',
        ),
        failures,
      );
    }
    for (const route of jsonRoutes)
      expectRefusal(
        `${route.label ?? route.path} form`,
        route,
        await send(route, 'model=x&messages=y', 'application/x-www-form-urlencoded'),
        failures,
      );
    expect(failures).toEqual([]);
  });

  it('recorded no channel error and left the channel enabled', async () => {
    await drainWriter(t);
    const errors = await t.database.db.kysely
      .selectFrom('logs')
      .select('content')
      .where('type', '=', LogType.Error)
      .execute();
    expect(errors).toEqual([]);
    const ch = await t.database.db.kysely
      .selectFrom('channels')
      .select('status')
      .where('name', '=', 'sweep')
      .executeTakeFirstOrThrow();
    expect(ch.status).toBe(1);
  });

  it('refuses a missing or wrong key on every relay route with 401 in the caller’s protocol, before the body', async () => {
    const failures: string[] = [];
    const keyRoutes = [
      ...jsonRoutes.filter((r) => r.auth === 'key'),
      ...MULTIPART.map((path): RelayRoute => ({ path, protocol: 'openai', valid: {}, fields: [], auth: 'key' })),
    ];
    for (const route of keyRoutes) {
      const wrongKeys: Record<string, string>[] = [
        {},
        { authorization: 'Bearer sk-not-a-key', 'x-api-key': 'not-a-key', 'x-goog-api-key': 'not-a-key' },
      ];
      for (const headers of wrongKeys) {
        const r = await fetch(`${base}${route.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{"oops":',
        });
        const text = await r.text();
        const res = { status: r.status, json: JSON.parse(text) as Record<string, any>, text };
        if (res.status !== 401) failures.push(`${route.path}: ${res.status} ${text.slice(0, 100)}`);
        expectRefusal(`${route.path} no key`, route, res, failures);
      }
    }
    expect(failures).toEqual([]);
  });
});
