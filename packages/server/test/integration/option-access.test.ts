import { canAccessOption, ErrorCode, optionAliasKeys, optionKeys, Role, SECRET_OPTION_KEYS } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

type Option = { key: string; value: string };
const SMTP_SECRET = 'smtp-secret-only-root-sees-nothing';

/**
 * Who reads and writes which option: root every key; an administrator the operation settings only (their GET
 * lists those, a write of a root-only key is refused in new-api's way and audited as denied); a user none.
 */
describe.each(dialects)('option access by role on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, user: Client;
  useApp(dialect, { admins: ['opt-admin'], users: ['opt-user'] }, (app) => {
    ({ t, root } = app);
    admin = app.admins[0]!;
    user = app.users[0]!;
  });
  const auditRows = () =>
    t.runtime.ctx.logDb.kysely
      .selectFrom('audit_logs')
      .select(['actor_name', 'action', 'target_id', 'outcome', 'detail'])
      .where('action', '=', 'option.update')
      .orderBy('id')
      .execute();

  it('lists an administrator only the operation settings, never a secret; root every key', async () => {
    expect((await root.call('PUT', '/api/option/', { key: 'SMTPToken', value: SMTP_SECRET })).body.success).toBe(true);
    expect(
      (await root.call('PUT', '/api/option/', { key: 'ServerAddress', value: 'https://gw.example' })).body,
    ).toMatchObject({ success: true });
    const res = await admin.call<Option[]>('GET', '/api/option/');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const keys = res.body.data!.map((o) => o.key).sort();
    const expected = [...optionKeys, ...optionAliasKeys].filter((k) => canAccessOption(Role.Admin, k)).sort();
    expect(keys).toEqual(expected);
    expect(keys).toContain('ModelRatio');
    expect(keys).toContain('checkin_setting.enabled');
    for (const k of [...SECRET_OPTION_KEYS, 'ServerAddress', 'custom_head_html', 'GitHubClientId', 'SMTPServer'])
      expect(keys, k).not.toContain(k);
    expect(JSON.stringify(res.body)).not.toContain(SMTP_SECRET);
    expect(JSON.stringify(res.body)).not.toContain('gw.example');

    const all = await root.call<Option[]>('GET', '/api/option/');
    expect(all.body.data!.map((o) => o.key).sort()).toEqual([...optionKeys, ...optionAliasKeys].sort());
    expect(all.body.data!.find((o) => o.key === 'SMTPToken')!.value).toBe('');
    expect(all.body.data!.find((o) => o.key === 'ServerAddress')!.value).toBe('https://gw.example');
    expect((await user.call('GET', '/api/option/')).status).toBe(403);
  });

  it("refuses an administrator's write of a root-only key, accepts an operation key, and audits both", async () => {
    const before = (await auditRows()).length;
    for (const [key, value] of [
      ['ServerAddress', 'https://evil.example'],
      ['custom_head_html', '<script>steal()</script>'],
      ['SMTPToken', 'admin-smtp-try'],
    ] as const) {
      const res = await admin.call('PUT', '/api/option/', { key, value });
      expectRefused(res, key, `only the super administrator can change ${key}`);
      expect(res.body).toMatchObject({ code: ErrorCode.OptionRootOnly, params: { key } });
    }
    expect(t.runtime.ctx.options.get('ServerAddress')).toBe('https://gw.example');
    expect(t.runtime.ctx.options.get('custom_head_html')).toBe('');
    expect(t.runtime.ctx.options.get('SMTPToken')).toBe(SMTP_SECRET);

    expect((await admin.call('PUT', '/api/option/', { key: 'RetryTimes', value: '3' })).body.success).toBe(true);
    expect(
      (await admin.call('PUT', '/api/option/', { key: 'checkin_setting.enabled', value: 'true' })).body,
    ).toMatchObject({
      success: true,
    });
    expect(t.runtime.ctx.options.get('RetryTimes')).toBe('3');
    expect(t.runtime.ctx.options.get('CheckInEnabled')).toBe('true');
    // Validation still applies to what an administrator may write.
    expectRefused(await admin.call('PUT', '/api/option/', { key: 'RetryTimes', value: 'many' }), 'RetryTimes');
    // An unknown key is unknown, not root-only.
    const unknown = await admin.call('PUT', '/api/option/', { key: 'NoSuchOption', value: '1' });
    expect(unknown.body).toMatchObject({ success: false, code: ErrorCode.OptionUnknown });

    const rows = (await auditRows()).slice(before);
    expect(rows.map((r) => [r.actor_name, r.target_id, r.outcome])).toEqual([
      ['opt-admin', 'ServerAddress', 'denied'],
      ['opt-admin', 'custom_head_html', 'denied'],
      ['opt-admin', 'SMTPToken', 'denied'],
      ['opt-admin', 'RetryTimes', 'ok'],
      ['opt-admin', 'checkin_setting.enabled', 'ok'],
    ]);
    expect(JSON.stringify(rows)).not.toContain('admin-smtp-try');
  });

  it('leaves root able to write every kind of key', async () => {
    for (const [key, value] of [
      ['ServerAddress', 'https://root.example'],
      ['custom_head_html', '<meta name="x" content="y">'],
      ['RetryTimes', '2'],
    ] as const)
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
    expect(t.runtime.ctx.options.get('ServerAddress')).toBe('https://root.example');
    expect((await user.call('PUT', '/api/option/', { key: 'RetryTimes', value: '1' })).status).toBe(403);
  });
});
