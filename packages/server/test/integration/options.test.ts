import { optionAliasKeys, optionDefs, optionKeys } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { OptionsService } from '../../src/core/options/service.js';
import { OptionsStore } from '../../src/core/options/store.js';
import { Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

describe.each(dialects)('options on %s', (dialect) => {
  let t: TestApp, root: Client;
  useApp(dialect, {}, (app) => ({ t, root } = app));

  it('lists every key (and new-api alias) with its default; secrets are blank', async () => {
    const res = await root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    const map = new Map(res.body.data!.map((o) => [o.key, o.value]));
    expect([...map.keys()].sort()).toEqual([...optionKeys, ...optionAliasKeys].sort());
    expect(map.get('Price')).toBe('7.3');
    expect(map.get('PasswordLoginEnabled')).toBe('true');
    expect(map.get('SMTPPort')).toBe('587');
    for (const key of optionKeys) if ((optionDefs[key] as { secret?: boolean }).secret) expect(map.get(key)).toBe('');
  });

  it('validates by type and names the key', async () => {
    const cases: [string, unknown, string][] = [
      ['RegisterEnabled', 'yes', 'RegisterEnabled must be true or false'],
      ['SMTPPort', 'abc', 'SMTPPort must be a number'],
      ['RetryTimes', '1.5', 'RetryTimes must be an integer'],
      ['LinuxDOMinimumTrustLevel', '5', 'LinuxDOMinimumTrustLevel must be at most 4'],
      ['GroupRatio', '{bad', 'GroupRatio is not a valid JSON string'],
      ['TopupGroupRatio', '{"vip":"x"}', 'TopupGroupRatio:'],
      ['ReverseProxyProvider', 'apache', 'ReverseProxyProvider must be one of nginx, cloudflare'],
      ['NoSuchKey', 'x', 'unknown option: NoSuchKey'],
    ];
    for (const [key, value, message] of cases) {
      const res = await root.call('PUT', '/api/option/', { key, value });
      expectRefused(res, key);
      expect(res.body.success).toBe(false);
      expect(res.body.message).toContain(message);
    }
  });

  it('stores text, persists across a reload, and takes effect at once in /api/status and the text endpoints', async () => {
    const anon = new Client(t.app);
    for (const [key, value] of [
      ['SystemName', 'Acme Gateway'],
      ['Logo', 'https://example.com/logo.png'],
      ['Footer', '<b>Acme</b>'],
      ['Notice', 'Maintenance tonight'],
      ['HomePageContent', '# Welcome'],
      ['About', 'About Acme'],
      ['DisplayInCurrencyEnabled', false],
      ['QuotaPerUnit', 1000],
      ['TopupGroupRatio', { default: 1, vip: 0.9 }],
    ] as const) {
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
    }
    const status = await anon.call<Record<string, unknown>>('GET', '/api/status');
    expect(status.body.data).toMatchObject({
      system_name: 'Acme Gateway',
      logo: 'https://example.com/logo.png',
      footer_html: '<b>Acme</b>',
      display_in_currency: false,
      quota_per_unit: 1000,
    });
    expect((await anon.call('GET', '/api/notice')).body.data).toBe('Maintenance tonight');
    expect((await anon.call('GET', '/api/about')).body.data).toBe('About Acme');
    expect((await anon.call('GET', '/api/home_page_content')).body.data).toBe('# Welcome');

    const fresh = new OptionsService(new OptionsStore(t.database.db), t.runtime.ctx.secretBox);
    await fresh.load();
    expect(fresh.get('SystemName')).toBe('Acme Gateway');
    expect(fresh.bool('DisplayInCurrencyEnabled')).toBe(false);
    expect(fresh.json('TopupGroupRatio')).toEqual({ default: 1, vip: 0.9 });
    expect(fresh.num('QuotaPerUnit')).toBe(1000);
  });

  it('keeps secrets write-only', async () => {
    expect(
      (await root.call('PUT', '/api/option/', { key: 'SMTPToken', value: 'smtp-secret-value' })).body.success,
    ).toBe(true);
    const res = await root.call('GET', '/api/option/');
    expect(JSON.stringify(res.body)).not.toContain('smtp-secret-value');
    expect(t.runtime.ctx.options.get('SMTPToken')).toBe('smtp-secret-value');
  });
});
