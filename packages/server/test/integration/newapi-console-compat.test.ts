import type { MjRow } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { MJ_T0, mjRow } from '../support/mj-row.js';
import { expectRefused } from '../support/refusal.js';

type Page<T> = { items: T[]; page: number; page_size: number; total: number };
const T0 = MJ_T0;
const MS = 1000;

/** What new-api's own console sends and reads, answered the way it expects (additive to Tollway's API). */
describe.each(dialects)('new-api console compatibility on %s', (dialect) => {
  let t: TestApp, root: Client, alice: Client, bob: Client;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    root = await setupRoot(t.app);
    alice = await createUserClient(t.app, root, 'alice');
    bob = await createUserClient(t.app, root, 'bob');
    await t.database.db.kysely
      .insertInto('midjourneys')
      .values([
        mjRow({ user_id: alice.userId!, mj_id: 'mj-a1', submit_time: T0 + 10 }),
        mjRow({ user_id: alice.userId!, mj_id: 'mj-a2', submit_time: T0 + 20 }),
        mjRow({ user_id: bob.userId!, mj_id: 'mj-b1', submit_time: T0 + 30 }),
      ])
      .execute();
  });
  afterAll(async () => t?.close());

  const page = async <T>(c: Client, url: string): Promise<Page<T>> => {
    const res = await c.call<Page<T>>('GET', url);
    expect(res.status, `${url}: ${res.body.message}`).toBe(200);
    return res.body.data!;
  };

  it('paged answers carry page_size beside page and total', async () => {
    for (const url of [
      '/api/user/?p=1&page_size=3',
      '/api/log/?p=1&page_size=7',
      '/api/channel/?p=1&page_size=5',
      '/api/mj/?p=2&page_size=2',
    ]) {
      const data = await page(root, url);
      const asked = Number(new URL(url, 'http://x').searchParams.get('page_size'));
      expect(data, url).toMatchObject({
        page_size: asked,
        page: Number(new URL(url, 'http://x').searchParams.get('p')),
      });
      expect(data.items.length).toBeLessThanOrEqual(asked);
    }
    // The default page size is named too.
    expect(await page(root, '/api/redemption/')).toMatchObject({ page: 1, page_size: 10, total: 0, items: [] });
    expect((await page(root, '/api/channel/?tag_mode=true&page_size=4')).page_size).toBe(4);
    expect((await page(alice, '/api/log/self/?page_size=6')).page_size).toBe(6);
  });

  it('top-up info carries a discount map, empty when none is configured', async () => {
    const res = await alice.call<Record<string, unknown>>('GET', '/api/user/topup/info');
    expect(res.status).toBe(200);
    expect(res.body.data!.discount).toEqual({});
    expect(res.body.data).toHaveProperty('amount_options');
  });

  it('status carries quota_display_type and the dashboard-panel flags', async () => {
    const status = async () => (await new Client(t.app).call<Record<string, unknown>>('GET', '/api/status')).body.data!;
    expect(await status()).toMatchObject({
      quota_display_type: 'USD',
      display_in_currency: true,
      api_info_enabled: false,
      uptime_kuma_enabled: false,
      announcements_enabled: false,
      faq_enabled: false,
    });
    expect(
      (await root.call('PUT', '/api/option/', { key: 'DisplayInCurrencyEnabled', value: 'false' })).body.success,
    ).toBe(true);
    expect(await status()).toMatchObject({ quota_display_type: 'TOKENS', display_in_currency: false });
    expect(
      (await root.call('PUT', '/api/option/', { key: 'DisplayInCurrencyEnabled', value: 'true' })).body.success,
    ).toBe(true);
    expect((await status()).quota_display_type).toBe('USD');
  });

  it('drawing lists take millisecond bounds as the console sends them', async () => {
    const ids = (p: Page<MjRow>) => p.items.map((r) => r.mj_id);
    const ms = `start_timestamp=${(T0 + 15) * MS}&end_timestamp=${(T0 + 30) * MS + 999}`;
    expect(ids(await page<MjRow>(root, `/api/mj/?${ms}`))).toEqual(['mj-b1', 'mj-a2']);
    expect(ids(await page<MjRow>(alice, `/api/mj/self?${ms}`))).toEqual(['mj-a2']);
    expect(ids(await page<MjRow>(alice, `/api/mj/self/?start_timestamp=${(T0 + 5) * MS}`))).toEqual(['mj-a2', 'mj-a1']);
    // Seconds still read as seconds, and the same bounds give the same rows.
    expect(ids(await page<MjRow>(root, `/api/mj/?start_timestamp=${T0 + 15}&end_timestamp=${T0 + 30}`))).toEqual([
      'mj-b1',
      'mj-a2',
    ]);
    const bad = await root.call('GET', '/api/mj/?start_timestamp=yesterday');
    expectRefused(bad);
    expect(bad.body.message).toContain('start_timestamp must be epoch seconds');
  });

  it('registration takes aff_code: null as no invite code', async () => {
    const c = new Client(t.app);
    const reg = await c.call('POST', '/api/user/register', {
      username: 'nullaff',
      password: 'nullaff-pass',
      password2: 'nullaff-pass',
      aff_code: null,
    });
    expect(reg.body).toMatchObject({ success: true });
    expect((await c.login('nullaff', 'nullaff-pass')).body.success).toBe(true);
    const row = await t.database.db.kysely
      .selectFrom('users')
      .select(['inviter_id'])
      .where('username', '=', 'nullaff')
      .executeTakeFirstOrThrow();
    expect(Number(row.inviter_id)).toBe(0);
    // A code of the wrong type is still refused.
    const wrong = await new Client(t.app).call('POST', '/api/user/register', {
      username: 'numaff',
      password: 'numaff-pass',
      aff_code: 42,
    });
    expect(wrong.body.success).toBe(false);
  });

  it('an option update without a value stores an empty text; typed options and a missing key are still refused', async () => {
    expect(
      (await root.call('PUT', '/api/option/', { key: 'SMTPServer', value: 'smtp.example.com' })).body.success,
    ).toBe(true);
    const blank = await root.call('PUT', '/api/option/', { key: 'SMTPServer' });
    expect(blank.status).toBe(200);
    expect(blank.body.success).toBe(true);
    const list = await root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    expect(list.body.data!.find((o) => o.key === 'SMTPServer')?.value).toBe('');
    const port = await root.call('PUT', '/api/option/', { key: 'SMTPPort' });
    expectRefused(port);
    expect(port.body.message).toContain('SMTPPort must be a number');
    const flag = await root.call('PUT', '/api/option/', { key: 'SMTPSSLEnabled' });
    expectRefused(flag);
    const noKey = await root.call('PUT', '/api/option/', { value: 'x' });
    expectRefused(noKey);
    expect(noKey.body.success).toBe(false);
  });
});
