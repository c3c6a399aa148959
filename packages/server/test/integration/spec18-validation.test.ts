import { describe, expect, it } from 'vitest';
import type { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

/** A business refusal on /api: success false and a message naming the rule (the status is not asserted here). */
function refused(res: { body: { success: boolean; message: string } }, message: string) {
  expect(res.body.success, res.body.message).toBe(false);
  expect(res.body.message).toContain(message);
}

/**
 * Inputs the console used to clamp or round are refused by the server with a message, and the editors' fields
 * (token rate limits, channel model prefix and input cap, comma-string models and groups) are stored.
 */
describe.each(dialects)('console inputs the server refuses or stores, on %s', (dialect) => {
  let root: Client, user: Client;
  useApp(
    dialect,
    { users: ['s18user'], timeout: 60_000 },
    (app) =>
      ({
        root,
        users: [user],
      } = app),
  );

  it('refuses redemption counts 0 and 101 and creates none', async () => {
    refused(
      await root.call('POST', '/api/redemption/', { name: 'zero', quota: 1000, count: 0 }),
      'count must be at least 1',
    );
    refused(
      await root.call('POST', '/api/redemption/', { name: 'many', quota: 1000, count: 101 }),
      'count must be at most 100',
    );
    const page = await root.call<{ total: number }>('GET', '/api/redemption/?p=1&page_size=10');
    expect(page.body.data!.total).toBe(0);
  });

  it('refuses a top-up amount of 0.5 and of 0', async () => {
    refused(await user.call('POST', '/api/user/amount', { amount: 0.5 }), 'amount must be at least 1');
    refused(await user.call('POST', '/api/user/amount', { amount: 1.5 }), 'amount must be a whole number');
    refused(
      await user.call('POST', '/api/user/pay', { amount: 0, payment_method: 'zfb', top_up_code: '' }),
      'amount must be at least 1',
    );
  });

  it('refuses a rebate percentage of 150 and keeps the old value', async () => {
    refused(await root.call('PUT', '/api/option/', { key: 'RebatePercentage', value: '150' }), 'RebatePercentage');
    const opts = await root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    expect(opts.body.data!.find((o) => o.key === 'RebatePercentage')?.value).toBe('0');
  });

  it('refuses a tag priority of 1.5 and a garbage token expiry', async () => {
    const made = await root.call('POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 's18-tagged', type: 1, key: 'sk-s18', models: 'gpt-4o', group: 'default', tag: 's18tag' },
    });
    expect(made.body.success, made.body.message).toBe(true);
    refused(
      await root.call('PUT', '/api/channel/tag', { tag: 's18tag', priority: 1.5 }),
      'priority must be an integer',
    );
    refused(
      await user.call('POST', '/api/token/', { name: 'garbage', expired_time: 'next tuesday-ish' }),
      'expiry time format is wrong',
    );
    const list = await user.call<{ items: unknown[] }>('GET', '/api/token/?p=1&size=10');
    expect(list.body.data!.items).toHaveLength(0);
  });

  it('stores token rate limits and refuses a zero window', async () => {
    const made = await user.call<{ id: number }[]>('POST', '/api/token/', {
      name: 'limited',
      rate_limit_enabled: true,
      rate_limit_period: 120,
      rate_limit_count: 5,
      rate_limit_success: 3,
    });
    expect(made.body.success, made.body.message).toBe(true);
    const id = made.body.data![0]!.id;
    const got = await user.call<Record<string, unknown>>('GET', `/api/token/${id}`);
    expect(got.body.data).toMatchObject({
      rate_limit_enabled: true,
      rate_limit_period: 120,
      rate_limit_count: 5,
      rate_limit_success: 3,
    });
    refused(
      await user.call('PUT', '/api/token/', { id, rate_limit_period: 0 }),
      'rate_limit_period must be at least 1',
    );
  });

  it('takes models and group as comma strings or lists, and stores model_prefix and max_input_tokens', async () => {
    const asText = await root.call('POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 's18-text',
        type: 1,
        key: 'sk-a',
        models: 'gpt-4o,gpt-4o-mini',
        group: 'default,vip',
        model_prefix: 'pre/',
        max_input_tokens: 4096,
      },
    });
    const asList = await root.call('POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 's18-list', type: 1, key: 'sk-b', models: ['gpt-4o', 'gpt-4o-mini'], group: ['default', 'vip'] },
    });
    expect(asText.body.success, asText.body.message).toBe(true);
    expect(asList.body.success, asList.body.message).toBe(true);
    const list = await root.call<{
      items: { models: string; group: string; model_prefix: string; max_input_tokens: number; name: string }[];
    }>('GET', '/api/channel/?p=1&page_size=50');
    const byName = (name: string) => list.body.data!.items.find((c) => c.name === name);
    expect(byName('s18-text')).toMatchObject({
      models: 'gpt-4o,gpt-4o-mini',
      group: 'default,vip',
      model_prefix: 'pre/',
      max_input_tokens: 4096,
    });
    expect(byName('s18-list')).toMatchObject({
      models: 'gpt-4o,gpt-4o-mini',
      group: 'default,vip',
      model_prefix: '',
      max_input_tokens: 0,
    });
  });
});
