import { describe, expect, it } from 'vitest';
import { AFFINITY_VALUE_MAX_CHARS, type AffinityRule } from '@tollway/shared';
import { OptionsService } from '../../src/core/options/service.js';
import type { OptionsStore } from '../../src/core/options/store.js';
import type { SecretBox } from '../../src/lib/secret-box.js';
import { ChannelAffinity } from '../../src/core/routing/affinity.js';
import { matchAffinity, plainPattern, type AffinityCaller } from '../../src/core/routing/affinity-rules.js';
import { toCachedChannel, type CachedChannel } from '../../src/core/routing/channel-cache.js';
import type { ChannelRow } from '../../src/core/routing/channel-row.js';

function options(): OptionsService {
  const store = { all: async () => [], upsert: async () => undefined } as unknown as OptionsStore;
  const box = { seal: (v: string) => v, open: (v: string) => v } as unknown as SecretBox;
  return new OptionsService(store, box);
}

const caller: AffinityCaller = {
  tokenId: 7,
  userId: 3,
  tokenName: 'ci',
  tokenGroup: '',
  username: 'alice',
  userGroup: 'vip',
};

const rule = (r: Partial<AffinityRule>): AffinityRule => ({
  name: 'r',
  model_regex: ['.*'],
  path_regex: [],
  key_sources: [],
  value_regex: '',
  ttl_seconds: 0,
  skip_retry_on_failure: false,
  include_using_group: false,
  include_model_name: false,
  include_rule_name: true,
  ...r,
});

async function withRules(...rules: AffinityRule[]) {
  const o = options();
  await o.set('channel_affinity_setting.rules', JSON.stringify(rules));
  return {
    o,
    affinity: new ChannelAffinity(o, { get: () => undefined }, { blocked: () => false, keyBlocked: () => false }),
  };
}

const call = (
  body: unknown,
  headers: Record<string, string> = {},
  path = '/v1/chat/completions',
  model = 'gpt-4o',
) => ({
  model,
  path,
  headers,
  body,
});

describe('affinity rules', () => {
  it('reads the session from the body, a header or the caller, the first source with a value winning', async () => {
    const { affinity } = await withRules(
      rule({
        name: 'multi',
        key_sources: [
          { type: 'gjson', path: 'metadata.user_id' },
          { type: 'request_header', key: 'Session_Id' },
          { type: 'context_int', key: 'token_id' },
        ],
      }),
    );
    const s = affinity.settings.get();
    const byBody = matchAffinity(s, call({ metadata: { user_id: 'u-1' } }, { session_id: 'h-1' }), caller, 'default');
    expect(byBody?.source).toMatchObject({ type: 'gjson', path: 'metadata.user_id' });
    expect(byBody?.hint).toBe('u-1');
    const byHeader = matchAffinity(s, call({}, { session_id: 'h-1' }), caller, 'default');
    expect(byHeader?.source.type).toBe('request_header');
    const byToken = matchAffinity(s, call({}), caller, 'default');
    expect(byToken?.source.type).toBe('context_int');
    // Different values are different sessions; the same value is the same one.
    expect(byHeader!.key).not.toBe(byToken!.key);
    expect(matchAffinity(s, call({}, { session_id: 'h-1' }), caller, 'default')!.key).toBe(byHeader!.key);
  });

  it('matches model, path, client and value patterns, and keys a session by group and model when asked', async () => {
    const { affinity } = await withRules(
      rule({
        name: 'claude',
        model_regex: ['^claude-'],
        path_regex: ['/v1/messages$'],
        user_agent_include: ['Claude-CLI'],
        key_sources: [{ type: 'gjson', path: 'metadata.user_id' }],
        value_regex: '^user_',
        include_using_group: true,
        include_model_name: true,
      }),
    );
    const s = affinity.settings.get();
    const ua = { 'user-agent': 'claude-cli/2.0 (external, cli)' };
    const body = { metadata: { user_id: 'user_abc_session_123456789' } };
    const hit = matchAffinity(s, call(body, ua, '/v1/messages', 'claude-sonnet-4'), caller, 'vip');
    expect(hit?.key.startsWith('claude:claude-sonnet-4:vip:')).toBe(true);
    expect(hit?.hint).toBe('user...6789');
    expect(hit?.fingerprint).toMatch(/^[0-9a-f]{8}$/);
    expect(matchAffinity(s, call(body, ua, '/v1/messages', 'gpt-4o'), caller, 'vip')).toBeUndefined();
    expect(matchAffinity(s, call(body, ua, '/v1/chat/completions', 'claude-x'), caller, 'vip')).toBeUndefined();
    expect(matchAffinity(s, call(body, {}, '/v1/messages', 'claude-x'), caller, 'vip')).toBeUndefined();
    const other = { metadata: { user_id: 'anon' } };
    expect(matchAffinity(s, call(other, ua, '/v1/messages', 'claude-x'), caller, 'vip')).toBeUndefined();
    // Another group is another session.
    const inDefault = matchAffinity(s, call(body, ua, '/v1/messages', 'claude-sonnet-4'), caller, 'default');
    expect(inDefault!.key).not.toBe(hit!.key);
  });

  it('cuts a long value before hashing and never puts the value itself in the key', async () => {
    const { affinity } = await withRules(rule({ key_sources: [{ type: 'gjson', path: 'prompt_cache_key' }] }));
    const s = affinity.settings.get();
    const long = 'x'.repeat(AFFINITY_VALUE_MAX_CHARS);
    const a = matchAffinity(s, call({ prompt_cache_key: long }), caller, 'default')!;
    const b = matchAffinity(s, call({ prompt_cache_key: `${long}tail` }), caller, 'default')!;
    expect(a.key).toBe(b.key);
    expect(a.key).not.toContain('xxxx');
    expect(a.key.length).toBeLessThan(64);
  });

  it('runs patterns in the linear-time engine: a rule with a pattern it refuses never applies', async () => {
    const { affinity } = await withRules(
      rule({ name: 'lookahead', model_regex: ['^(?=gpt)'], key_sources: [{ type: 'context_int', key: 'id' }] }),
      rule({ name: 'plain', model_regex: ['^gpt'], key_sources: [{ type: 'context_int', key: 'id' }] }),
    );
    expect(affinity.settings.get().rules.map((r) => r.name)).toEqual(['plain']);
    expect(affinity.match(call({}), caller, 'default')?.rule.name).toBe('plain');
  });

  it('tests plain patterns as strings with the meaning of the regular expression', () => {
    const patterns = [
      '.*',
      '^gpt-.*$',
      '^gpt-.*',
      '/v1/messages',
      '^exact$',
      'end$',
      '^start',
      '^.*$',
      '',
      'x.*$',
      '.*$',
      '^.*',
      'gpt.*',
    ];
    const texts = [
      'gpt-4o',
      'gpt-',
      'xgpt-4o',
      'gpt-4\nx',
      '/v1/messages',
      '/x/v1/messages?y',
      'exact',
      'exactly',
      'the end',
      'x\nx',
      'ax\n',
      'start',
      '',
      'a\nb',
    ];
    for (const p of patterns) {
      const fast = plainPattern(p);
      expect(fast, p).toBeDefined();
      for (const t of texts) expect(fast!.test(t), `${p} on ${JSON.stringify(t)}`).toBe(new RegExp(p).test(t));
    }
    for (const p of ['^a+$', 'a|b', '^(x)$', 'a.b', '\\d']) expect(plainPattern(p), p).toBeUndefined();
  });

  it("takes new-api's console payload, nulls included, and forgets a session after its rule's TTL", async () => {
    const o = options();
    await o.set(
      'channel_affinity_setting.rules',
      JSON.stringify([
        {
          ...rule({ key_sources: [{ type: 'context_int', key: 'id', path: null } as never], ttl_seconds: 1 }),
          user_agent_include: null,
          param_override_template: null,
        },
      ]),
    );
    const affinity = new ChannelAffinity(
      o,
      { get: () => undefined },
      { blocked: () => false, keyBlocked: () => false },
    );
    const m = affinity.match(call({}), caller, 'default')!;
    expect(m.rule.ttlMs).toBe(1000);
    affinity.served(m, undefined, { channelId: 1, keyIndex: 0, model: 'gpt-4o' });
    expect(await affinity.store.get(m.key)).toBeDefined();
    await new Promise((r) => setTimeout(r, 1100));
    expect(await affinity.store.get(m.key)).toBeUndefined();
  });

  it('matches nothing while affinity is off', async () => {
    const { o, affinity } = await withRules(rule({ key_sources: [{ type: 'context_int', key: 'id' }] }));
    expect(affinity.match(call({}), caller, 'default')).toBeDefined();
    await o.set('channel_affinity_setting.enabled', 'false');
    expect(affinity.match(call({}), caller, 'default')).toBeUndefined();
  });
});

function channelRow(over: Partial<ChannelRow>): ChannelRow {
  return {
    id: 1,
    type: 1,
    key: 'k0\nk1',
    status: 1,
    name: 'c',
    weight: 0,
    created_time: 0,
    test_time: 0,
    response_time: 0,
    base_url: 'http://127.0.0.1:1',
    other: '',
    balance: 0,
    balance_updated_time: 0,
    models: 'gpt-4o',
    group: 'default',
    used_quota: 0,
    model_mapping: '',
    status_code_mapping: '',
    priority: 0,
    auto_ban: 1,
    other_info: '',
    tag: '',
    setting: '',
    param_override: '',
    header_override: '',
    remark: '',
    channel_info: JSON.stringify({ is_multi_key: true, multi_key_mode: 'random' }),
    settings: '',
    openai_organization: '',
    test_model: '',
    ...over,
  } as unknown as ChannelRow;
}

describe('a pin is used only while its channel and key can serve the call', () => {
  const setup = async (ch: CachedChannel, blocked = { channel: false, key: false }) => {
    const o = options();
    await o.set(
      'channel_affinity_setting.rules',
      JSON.stringify([rule({ key_sources: [{ type: 'context_int', key: 'id' }] })]),
    );
    const affinity = new ChannelAffinity(
      o,
      { get: (id) => (id === ch.id ? ch : undefined) },
      { blocked: () => blocked.channel, keyBlocked: () => blocked.key },
    );
    const m = affinity.match(call({}), caller, 'default')!;
    affinity.served(m, undefined, { channelId: ch.id, keyIndex: 1, model: 'gpt-4o' });
    return { o, affinity, m };
  };
  const none: ReadonlySet<number> = new Set();

  it('serves on the pinned channel and key', async () => {
    const ch = toCachedChannel(channelRow({}));
    const { affinity, m } = await setup(ch);
    const pinned = await affinity.pinned(m, none, 0);
    expect(pinned).toMatchObject({ keyIndex: 1, mapped: { model: 'gpt-4o' } });
    expect(pinned!.ch).toBe(ch);
  });

  it.each([
    ['the key is disabled', { channel_info: JSON.stringify({ is_multi_key: true, multi_key_status_list: { 1: 2 } }) }],
    ['the mapping changed', { model_mapping: JSON.stringify({ 'gpt-4o': 'gpt-4o-mini' }) }],
    ['the channel left the group', { group: 'vip' }],
    ['the channel is disabled', { status: 2 }],
  ])('drops the pin when %s', async (_, over) => {
    const { affinity, m } = await setup(toCachedChannel(channelRow(over)));
    expect(await affinity.pinned(m, none, 0)).toBeUndefined();
    expect(await affinity.store.get(m.key)).toBeUndefined();
  });

  it.each([
    ['channel', { channel: true, key: false }],
    ['key', { channel: false, key: true }],
  ])('drops the pin when the %s breaker is open', async (_, blocked) => {
    const { affinity, m } = await setup(toCachedChannel(channelRow({})), blocked);
    expect(await affinity.pinned(m, none, 0)).toBeUndefined();
    expect(await affinity.store.get(m.key)).toBeUndefined();
  });

  it('keeps the pin of a disabled channel with keep_on_channel_disabled, and skips a tried or too small channel', async () => {
    const { o, affinity, m } = await setup(toCachedChannel(channelRow({ status: 2, max_input_tokens: 100 } as never)));
    await o.set('channel_affinity_setting.keep_on_channel_disabled', 'true');
    expect(await affinity.pinned(m, none, 0)).toBeUndefined();
    expect(await affinity.store.get(m.key)).toBeDefined();
    const enabled = await setup(toCachedChannel(channelRow({ max_input_tokens: 100 } as never)));
    expect(await enabled.affinity.pinned(enabled.m, new Set([1]), 0)).toBeUndefined();
    expect(await enabled.affinity.pinned(enabled.m, none, 101)).toBeUndefined();
    expect(await enabled.affinity.store.get(enabled.m.key)).toBeDefined();
  });

  it('moves the pin to the channel that served after a failure, unless switch_on_success is off', async () => {
    const { o, affinity, m } = await setup(toCachedChannel(channelRow({})));
    affinity.served(m, false, { channelId: 9, keyIndex: 0, model: 'gpt-4o' });
    expect(await affinity.store.get(m.key)).toMatchObject({ channelId: 9 });
    await o.set('channel_affinity_setting.switch_on_success', 'false');
    affinity.served(m, false, { channelId: 1, keyIndex: 1, model: 'gpt-4o' });
    expect(await affinity.store.get(m.key)).toMatchObject({ channelId: 9 });
  });
});
