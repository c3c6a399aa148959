import http from 'node:http';
import { ErrorCode } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult, Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { listenLocally, type LocalServer } from '../support/local-server.js';
import { expectRefused } from '../support/refusal.js';

/** A marker in every file the mock catalog serves: no answer of ours may carry a file's text. */
const MARKER = 'catalog-secret-marker';
const MB = 1024 * 1024;

/** new-api's catalog files (basellm llm-metadata): an envelope of models, a bare list of vendors. */
const MODELS = {
  success: true,
  message: '',
  data: [
    {
      model_name: 'qwen-max',
      description: 'Qwen max',
      icon: 'Qwen.Color',
      tags: 'chat',
      vendor_name: 'Alibaba',
      name_rule: 0,
      status: 1,
      context_length: 32768,
    },
    { model_name: 'gpt-4o', description: 'GPT-4o upstream', icon: 'OpenAI', tags: 'chat', vendor_name: 'OpenAI' },
    { model_name: 'pinned-model', description: 'upstream text', vendor_name: 'OpenAI' },
    { model_name: 'unserved-model', description: 'nobody serves it' },
    { description: 'an entry with no name is left out' },
  ],
};
const VENDORS = [{ name: 'Alibaba', description: 'Alibaba Cloud', icon: 'Alibaba.Color', status: 1 }];
const JA_MODELS = { success: true, data: [{ model_name: 'qwen-max', description: 'クエン' }] };

interface Preview {
  missing: string[];
  conflicts: { model_name: string; fields: { field: string; local: unknown; upstream: unknown }[] }[];
  source: { locale: string; models_url: string; vendors_url: string };
}
interface Applied {
  created_models: number;
  created_vendors: number;
  updated_models: number;
  skipped_models: string[];
  created_list: string[];
  updated_list: string[];
}
interface Model {
  id: number;
  model_name: string;
  description: string;
  vendor_id: number;
  context_length: number;
  sync_official: number;
}

/** Sync with the upstream catalog: through the outbound guard, preview then apply, and clear failures. */
describe.each(dialects)('model registry sync on %s', (dialect) => {
  /** What the mock serves for the default models file: the catalog, a status, bad JSON or too much. */
  let mode: 'good' | 'status' | 'junk' | 'huge' = 'good';
  const hits: string[] = [];
  const env: Record<string, string> = {};
  let host: LocalServer;
  beforeAll(async () => {
    host = await listenLocally(
      http.createServer((req, res) => {
        const url = req.url ?? '';
        hits.push(url);
        const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
        if (url === '/cat/api/newapi/vendors.json') return void json(VENDORS);
        if (url === '/cat/api/i18n/ja/newapi/models.json') return void json(JA_MODELS);
        if (url !== '/cat/api/newapi/models.json') return void res.writeHead(404).end(`${MARKER} not found`);
        if (mode === 'status') return void res.writeHead(500).end(`${MARKER} failing`);
        if (mode === 'junk') return void res.writeHead(200).end(`${MARKER} <html>`);
        if (mode === 'huge') {
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(MB, 0x20);
          for (let i = 0; i < 11; i++) res.write(chunk);
          return void res.end();
        }
        json(MODELS);
      }),
    );
    env.SYNC_UPSTREAM_BASE = `${host.url}/cat/`;
  });
  const app = useApp(dialect, { env, admins: ['sync-admin'] }, async ({ root }) => {
    await addChannel(root, {
      name: 'sync-a',
      key: 'sk-a',
      baseUrl: 'http://127.0.0.1:9',
      models: 'qwen-max,gpt-4o,pinned-model,not-in-catalog',
    });
  });
  afterAll(async () => host?.close());

  const ok = <T>(res: CallResult<T>): T => {
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data as T;
  };
  const admin = (): Client => app.admins[0]!;
  async function option(key: string, value: string) {
    ok(await app.root.call('PUT', '/api/option/', { key, value }));
  }
  const preview = (query = '') => admin().call<Preview>('GET', `/api/models/sync_upstream/preview${query}`);
  const models = async () =>
    Object.fromEntries(
      ok(await admin().call<{ items: Model[] }>('GET', '/api/models/?page_size=100')).items.map((m) => [
        m.model_name,
        m,
      ]),
    );

  it('refuses a catalog on loopback while the fetch settings block it, without calling it', async () => {
    await app.t.runtime.ctx.channelCache.reload();
    expectRefused(await preview(), 'port', `port ${host.port} is not allowed`);
    await option('fetch_setting.allowed_ports', JSON.stringify([String(host.port)]));
    const blocked = await preview();
    expectRefused(blocked, 'private', 'loopback');
    expect(blocked.body).toMatchObject({ code: ErrorCode.ModelCatalogFetchFailed, params: { file: 'models' } });
    expect(hits).toEqual([]);
    // The documented way to let the server reach a host on this machine.
    await option('fetch_setting.allow_private_ip', 'true');
  });

  it('previews the missing models the catalog has and the fields where entries that follow it differ', async () => {
    ok(await admin().call('POST', '/api/models/', { model_name: 'gpt-4o', description: 'mine' }));
    ok(
      await admin().call('POST', '/api/models/', {
        model_name: 'pinned-model',
        description: 'local',
        sync_official: 0,
      }),
    );
    const p = ok(await preview());
    expect(p.missing).toEqual(['qwen-max']);
    expect(p.conflicts).toEqual([
      {
        model_name: 'gpt-4o',
        fields: expect.arrayContaining([
          { field: 'description', local: 'mine', upstream: 'GPT-4o upstream' },
          { field: 'icon', local: '', upstream: 'OpenAI' },
          { field: 'vendor', local: '', upstream: 'OpenAI' },
        ]),
      },
    ]);
    expect(p.source.models_url).toBe(`${host.url}/cat/api/newapi/models.json`);
    expect(Object.keys(await models()).sort()).toEqual(['gpt-4o', 'pinned-model']);
  });

  it('applies: creates the missing models and their vendors, overwrites only the chosen fields', async () => {
    const done = ok(
      await admin().call<Applied>('POST', '/api/models/sync_upstream', {
        overwrite: [
          { model_name: 'gpt-4o', fields: ['description'] },
          { model_name: 'pinned-model', fields: ['description'] },
        ],
      }),
    );
    expect(done).toMatchObject({
      created_models: 1,
      created_vendors: 1,
      updated_models: 1,
      created_list: ['qwen-max'],
      updated_list: ['gpt-4o'],
      skipped_models: ['not-in-catalog'],
    });
    const all = await models();
    expect(all['qwen-max']).toMatchObject({ description: 'Qwen max', context_length: 32768, sync_official: 1 });
    expect(all['gpt-4o']).toMatchObject({ description: 'GPT-4o upstream', vendor_id: 0 });
    expect(all['pinned-model']!.description).toBe('local');
    const vendor = ok(
      await admin().call<{ name: string; description: string; icon: string; model_count: number }>(
        'GET',
        `/api/vendors/${all['qwen-max']!.vendor_id}`,
      ),
    );
    expect(vendor).toMatchObject({
      name: 'Alibaba',
      description: 'Alibaba Cloud',
      icon: 'Alibaba.Color',
      model_count: 1,
    });
    expect(ok(await admin().call<string[]>('GET', '/api/models/missing'))).toEqual(['not-in-catalog']);

    const again = ok(await admin().call<Applied>('POST', '/api/models/sync_upstream', {}));
    expect(again).toMatchObject({ created_models: 0, created_vendors: 0, skipped_models: ['not-in-catalog'] });
  });

  it('reads a locale from its own files and refuses an unknown one', async () => {
    ok(await admin().call('DELETE', `/api/models/${(await models())['qwen-max']!.id}`));
    const before = hits.length;
    const p = ok(await preview('?locale=ja'));
    expect(p.source.models_url).toBe(`${host.url}/cat/api/i18n/ja/newapi/models.json`);
    expect(p.missing).toEqual(['qwen-max']);
    expect(hits.slice(before)).toContain('/cat/api/i18n/ja/newapi/models.json');
    expectRefused(await preview('?locale=../../etc'), 'locale', 'locale');
  });

  it('answers a failing, invalid or oversized catalog clearly, never with its text, and writes nothing', async () => {
    const cases: [typeof mode, ErrorCode, string][] = [
      ['status', ErrorCode.ModelCatalogFetchStatus, 'HTTP 500'],
      ['junk', ErrorCode.ModelCatalogInvalid, 'not valid JSON'],
      ['huge', ErrorCode.ModelCatalogTooLarge, 'larger than 10 MB'],
    ];
    for (const [m, code, text] of cases) {
      mode = m;
      for (const res of [await preview(), await admin().call('POST', '/api/models/sync_upstream', {})]) {
        expectRefused(res, m, text);
        expect(res.body).toMatchObject({ code, params: { file: 'models' } });
        expect(JSON.stringify(res.body)).not.toContain(MARKER);
      }
    }
    mode = 'good';
    expect(Object.keys(await models())).not.toContain('qwen-max');
  });
});
