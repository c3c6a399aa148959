import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { listenLocally, type LocalServer } from '../support/local-server.js';
import { expectRefused } from '../support/refusal.js';

/** A marker in every file the mock host serves: no answer of ours may carry a file's text. */
const MARKER = 'upstream-secret-marker';
const GOOD: Record<string, string> = {
  '/flexible/prompt.json': JSON.stringify({ 'gpt-4o': 1.25, 'claude-3-5-sonnet': 1.5 }),
  '/flexible/completion.json': JSON.stringify({ 'gpt-4o': 4, 'claude-3-5-sonnet': 5 }),
  '/openrouter/prompt.json': JSON.stringify({ 'openai/gpt-4o': 1.25 }),
  '/openrouter/completion.json': JSON.stringify({ 'openai/gpt-4o': 4 }),
  '/mixed/prompt.json': JSON.stringify({ 'mixed-model': 0.5 }),
  '/mixed/completion.json': JSON.stringify({ 'mixed-model': 3 }),
  '/completion.json': JSON.stringify({ 'legacy-model': 2 }),
};

describe.each(dialects)('preset ratio sources on %s', (dialect) => {
  /** What the mock host answers per path: a body (200) or a status. */
  const files: Record<string, string | number> = { ...GOOD };
  const hits: string[] = [];
  let host: LocalServer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    host = await listenLocally(
      http.createServer((req, res) => {
        hits.push(req.url ?? '');
        const f = files[(req.url ?? '').replace(/^\/presets/, '')];
        if (f === undefined)
          return void res.writeHead(404, { 'content-type': 'text/plain' }).end(`${MARKER} not found`);
        if (typeof f === 'number')
          return void res.writeHead(f, { 'content-type': 'text/plain' }).end(`${MARKER} failing`);
        res.writeHead(200, { 'content-type': 'application/json' }).end(f);
      }),
    );
    env.RATIO_PRESET_BASE_URL = `${host.url}/presets/`;
  });
  const app = useApp(dialect, { env, admins: ['preset-admin'], users: ['preset-user'] });
  afterAll(async () => host?.close());

  async function option(key: string, value: string) {
    const res = await app.root.call('PUT', '/api/option/', { key, value });
    expect(res.body, key).toMatchObject({ success: true });
  }
  /** The documented way to let the server reach a host on this machine: private addresses and its port. */
  async function allowLocalHost(allowed: boolean) {
    await option('fetch_setting.allowed_ports', JSON.stringify([String(host.port)]));
    await option('fetch_setting.allow_private_ip', String(allowed));
  }
  const get = (c: Client, source: string) =>
    c.call<{ source: string; model_ratio: Record<string, number>; completion_ratio: Record<string, number> }>(
      'GET',
      `/api/ratio_preset/${source}`,
    );

  it('refuses the loopback preset host while the fetch settings block private addresses', async () => {
    const before = hits.length;
    expectRefused(await get(app.root, 'flexible'), 'port', `port ${host.port} is not allowed`);
    await allowLocalHost(false);
    const res = await get(app.root, 'flexible');
    expectRefused(res, 'blocked', 'loopback');
    expect(res.body.message).toContain('fetch settings');
    expect(hits.length, 'the host was never called').toBe(before);
  });

  it('answers a source as model and completion ratio maps, and saves nothing', async () => {
    await allowLocalHost(true);
    const optionsBefore = await app.root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    const ratioBefore = optionsBefore.body.data!.find((o) => o.key === 'ModelRatio')!.value;
    const res = await get(app.root, 'flexible');
    expect(res.body).toMatchObject({
      success: true,
      data: {
        source: 'flexible',
        model_ratio: { 'gpt-4o': 1.25, 'claude-3-5-sonnet': 1.5 },
        completion_ratio: { 'gpt-4o': 4, 'claude-3-5-sonnet': 5 },
      },
    });
    const optionsAfter = await app.root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    expect(optionsAfter.body.data!.find((o) => o.key === 'ModelRatio')!.value).toBe(ratioBefore);
  });

  it('serves a fetched source from its cache, and fetches again when the fetch settings change', async () => {
    await get(app.root, 'flexible');
    const before = hits.length;
    expect((await get(app.root, 'flexible')).body.success).toBe(true);
    expect(hits.length, 'cached').toBe(before);
    await option('fetch_setting.domain_list', '["blocked.example"]');
    expect((await get(app.root, 'flexible')).body.success).toBe(true);
    expect(hits.length, 'settings changed: fetched again').toBe(before + 2);
    await option('fetch_setting.domain_list', '[]');
  });

  it('reads openrouter from its two files, legacy from its one completion file and official from the mixed source', async () => {
    const openrouter = await get(app.root, 'openrouter');
    expect(openrouter.body.data).toMatchObject({
      source: 'openrouter',
      model_ratio: { 'openai/gpt-4o': 1.25 },
      completion_ratio: { 'openai/gpt-4o': 4 },
    });
    const mixed = await get(app.root, 'mixed');
    expect(mixed.body.data).toMatchObject({
      source: 'mixed',
      model_ratio: { 'mixed-model': 0.5 },
      completion_ratio: { 'mixed-model': 3 },
    });
    const legacy = await get(app.root, 'legacy');
    expect(legacy.body.data).toMatchObject({
      source: 'legacy',
      model_ratio: {},
      completion_ratio: { 'legacy-model': 2 },
    });
    const official = await get(app.root, 'official');
    expect(official.body.data).toMatchObject({
      source: 'mixed',
      model_ratio: { 'mixed-model': 0.5 },
      completion_ratio: { 'mixed-model': 3 },
    });
    // Other fetch settings than those the cache holds (it keeps the settings it fetched with): the cases below
    // serve other openrouter files. A deny list of another host leaves this one reachable.
    await option('fetch_setting.domain_list', '["elsewhere.example"]');
  });

  it('refuses an unknown source', async () => {
    expectRefused(await get(app.root, 'nonsense'), 'unknown source');
  });

  it('answers administrators (who edit the ratios) as root; refuses users and visitors', async () => {
    const admin = await get(app.admins[0]!, 'flexible');
    expect(admin.body).toMatchObject({ success: true, data: { model_ratio: { 'gpt-4o': 1.25 } } });
    const res = await get(app.users[0]!, 'flexible');
    expect(res.status).toBe(403);
    expect(res.body.success).toBe(false);
    expect(res.body.data).toBeUndefined();
    const anonymous = await app.t.app.inject({ method: 'GET', url: '/api/ratio_preset/flexible' });
    expect(anonymous.statusCode).toBe(401);
  });

  /** Label, the file served, the English reason, and the reason's code when the refusal carries one. */
  const BAD: [string, string | number, string, string | undefined][] = [
    ['not JSON', `<html>${MARKER}</html>`, 'not valid JSON', 'preset_file_not_json'],
    ['an array', JSON.stringify([1, 2]), 'not a JSON object', 'preset_file_not_object'],
    ['a negative ratio', JSON.stringify({ [MARKER]: -1 }), 'not a number from 0', 'preset_file_bad_ratio'],
    ['a ratio as text', JSON.stringify({ m: MARKER }), 'not a number from 0', 'preset_file_bad_ratio'],
    ['a huge ratio', JSON.stringify({ m: 1e308 }), 'not a number from 0', 'preset_file_bad_ratio'],
    ['an empty model name', JSON.stringify({ '': 1 }), 'model name', 'preset_file_bad_name'],
    ['a very long model name', JSON.stringify({ ['m'.repeat(201)]: 1 }), 'model name', 'preset_file_bad_name'],
    ['too large a file', JSON.stringify({ m: 1, pad: MARKER.repeat(200_000) }), 'larger than', undefined],
    ['an HTTP 500', 500, 'HTTP 500', undefined],
    ['a missing file', 404, 'HTTP 404', undefined],
  ];
  it.each(BAD)('refuses a file with %s, echoing none of it', async (_label, body, reason, reasonCode) => {
    files['/openrouter/prompt.json'] = JSON.stringify({ ok: 1 });
    files['/openrouter/completion.json'] = body;
    const res = await get(app.root, 'openrouter');
    expectRefused(res, _label, reason);
    expect(res.body.message).toContain('completion file');
    expect(JSON.stringify(res.body)).not.toContain(MARKER);
    // The console words a coded reason in the viewer's language.
    expect((res.body as { params?: Record<string, unknown> }).params?.reason_code).toBe(reasonCode);
  });

  it('fetches a source again after a failure (failures are not cached)', async () => {
    files['/openrouter/completion.json'] = JSON.stringify({ ok: 2 });
    const res = await get(app.root, 'openrouter');
    expect(res.body.data).toMatchObject({ model_ratio: { ok: 1 }, completion_ratio: { ok: 2 } });
  });
});
