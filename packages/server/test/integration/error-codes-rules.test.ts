import { ErrorCode, LogType, parseLogOther } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import texts from '../../../web/src/i18n/errors.js';
import type { CallResult, Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

type Coded = { success: boolean; message: string; code?: ErrorCode; params?: Record<string, string | number> };

/** A console text with its values filled in, as i18next writes it. */
const render = (text: string, params: Record<string, string | number> = {}) =>
  text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name] ?? `{{${name}}}`));

/**
 * A schema's own rule refused with its code and values: the English message is kept for API scripts, no English
 * reason travels in the values, and the Chinese text, filled in, holds none of the message's phrases.
 */
function expectRule(res: CallResult, code: ErrorCode, params: Record<string, unknown>): void {
  const body = res.body as Coded;
  expect(body.success, body.message).toBe(false);
  expect(body.code, body.message).toBe(code);
  expect(body.params).toMatchObject(params);
  expect(body.params?.reason, 'no English reason in the values').toBeUndefined();
  const zh = render(texts.zh[code], body.params);
  expect(zh, `${code}: every value of the zh text is given`).not.toMatch(/\{\{/);
  // No three words in a row of the English message (a URL scheme or a field's name alone may appear).
  const words = body.message.split(/[^A-Za-z]+/).filter(Boolean);
  for (let i = 0; i + 3 <= words.length; i++)
    expect(zh, `zh text of ${code}`).not.toContain(words.slice(i, i + 3).join(' '));
  expect(render(texts.en[code], body.params)).not.toMatch(/\{\{/);
}

describe.each(dialects)('refinements and option checks answer codes, error rows carry events, on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, user: Client, base: string, key: string;
  useGateway(dialect, { user: 'rules-user', quota: 1_000_000 }, async (gw) => {
    ({ t, mock, root, user, base, key } = gw);
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({ 'rules-dead': 0.5, 'rules-failing': 0.5 }),
    });
    await root.call('PUT', '/api/option/', { key: 'LogErrorEnabled', value: 'true' });
  });

  const channel = (fields: Record<string, unknown>) => ({
    mode: 'single',
    channel: { name: 'rules', type: 1, key: 'sk-rules', models: ['rules-model'], group: ['default'], ...fields },
  });

  it('a refinement failure answers its code and values, not its English reason', async () => {
    expectRule(
      await root.call('POST', '/api/channel/', channel({ base_url: 'ftp://example.com' })),
      ErrorCode.InputNotHttpUrl,
      { field: 'channel.base_url' },
    );
    expectRule(await root.call('POST', '/api/channel/', channel({ type: 999 })), ErrorCode.ChannelTypeUnknown, {
      field: 'channel.type',
    });
    expectRule(
      await root.call('POST', '/api/channel/', channel({ setting: '{"rpm_limit":-5}' })),
      ErrorCode.InputTooSmall,
      { field: 'channel.setting.rpm_limit', min: 0 },
    );
    expectRule(
      await root.call('POST', '/api/redemption/', {
        name: 'rules',
        quota: 10,
        valid_until: 2_000_000_000,
        expired_time: 2_000_000_001,
      }),
      ErrorCode.RedemptionExpiryConflict,
      {
        field: 'expired_time',
      },
    );
    expectRule(
      await root.call('POST', '/api/redemption/', { name: 'rules', quota: 10, max_uses: 0 }),
      ErrorCode.RedemptionMaxUsesInvalid,
      { field: 'max_uses' },
    );
    expectRule(
      await user.call('POST', '/api/token/', { name: 'rules', expired_time: 'next week' }),
      ErrorCode.TokenExpiryFormat,
      { field: 'expired_time' },
    );
    expectRule(
      await user.call('GET', '/api/data/self?start_timestamp=2000&end_timestamp=1000'),
      ErrorCode.DateRangeReversed,
      { field: 'start_timestamp' },
    );
    expectRule(
      await user.call('PUT', '/api/user/setting', { webhook_url: 'http://hooks.example.com/x' }),
      ErrorCode.WebhookUrlNotHttps,
      { field: 'webhook_url' },
    );
  });

  it("an option's value check answers a code with the key and the entry's field", async () => {
    const option = (k: string, value: string) => root.call('PUT', '/api/option/', { key: k, value });
    expectRule(await option('GroupRatio', '{"default":-1}'), ErrorCode.InputTooSmall, {
      key: 'GroupRatio',
      field: 'GroupRatio.default',
      min: 0,
    });
    expectRule(await option('GroupRateLimits', '{"vip":{"rpm":1,"rpd":2}}'), ErrorCode.InputUnknownKeys, {
      key: 'GroupRateLimits',
      field: 'GroupRateLimits.vip',
      keys: 'rpd',
    });
    expectRule(await option('fetch_setting.allowed_ports', '["443","99999"]'), ErrorCode.FetchPortInvalid, {
      field: 'fetch_setting.allowed_ports.1',
    });
    expectRule(await option('AutomaticDisableStatusCodes', '401,7'), ErrorCode.StatusCodeRuleInvalid, {
      key: 'AutomaticDisableStatusCodes',
      rule: '7',
    });
    expectRule(await option('SensitiveWords', 'fine\nregex:('), ErrorCode.SensitiveRegexInvalid, {
      key: 'SensitiveWords',
      line: 2,
    });
  });

  it('error rows of the gateway carry the event the console words: the upstream unreachable, an upstream error with its status', async () => {
    mock.behaviors.set('rules-429', { failStatus: 429, failMessage: 'slow down please' });
    await addChannel(root, {
      name: 'rules-dead',
      key: 'dead-key',
      baseUrl: 'http://127.0.0.1:1',
      models: 'rules-dead',
    });
    await addChannel(root, { name: 'rules-failing', key: 'rules-429', baseUrl: mock.url, models: 'rules-failing' });
    for (const model of ['rules-dead', 'rules-failing']) {
      const r = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(r.ok).toBe(false);
    }
    await drainWriter(t);
    const rows = await t.database.db.kysely
      .selectFrom('logs')
      .select(['model_name', 'content', 'other'])
      .where('user_id', '=', user.userId!)
      .where('type', '=', LogType.Error)
      .execute();
    const of = (model: string) => rows.find((r) => r.model_name === model)!;
    expect(of('rules-dead').content).toBe('upstream request failed');
    expect(parseLogOther(of('rules-dead').other).event).toEqual({ kind: 'upstream_failed' });
    expect(of('rules-failing').content).toContain('slow down please');
    expect(parseLogOther(of('rules-failing').other).event).toEqual({ kind: 'upstream_error', status: 429 });
  });
});
