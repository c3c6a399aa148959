import { ErrorCode } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { metrics } from '../../src/lib/metrics.js';
import { createUserClient, setupRoot, type CallResult, type Client, type TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { useTwoNodes } from '../support/two-nodes.js';

/**
 * Channel affinity end to end: three channels of equal standing (one of them with three keys) serve a model; calls
 * carrying one prompt_cache_key stay on one channel and key, move within the call when that pair fails, and never
 * go back to a key that was disabled. On one node (SQLite, pins in memory) and on two nodes sharing PostgreSQL and
 * Redis (pins in Redis: the calls alternate between the nodes).
 */
const MODEL = 'gpt-affinity';
const RULE = 'openai prompt cache key';
const KEYS = ['aff-k0', 'aff-k1', 'aff-k2', 'aff-a', 'aff-b'];
const SESSION_CALLS = 50;
const CACHED_TOKENS = 8;

interface Cluster {
  root: Client;
  mock: MockUpstream;
  key: string;
  bases: string[];
  multiKeyId: number;
  singleIds: number[];
}

async function addChannels(root: Client, mock: MockUpstream): Promise<Pick<Cluster, 'multiKeyId' | 'singleIds'>> {
  for (const [key, value] of Object.entries({ ModelPrice: JSON.stringify({ [MODEL]: 0.001 }), RetryTimes: '3' }))
    expect((await root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
  const created = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
    mode: 'multi_to_single',
    multi_key_mode: 'random',
    channel: { name: 'aff-multi', type: 1, key: KEYS.slice(0, 3).join('\n'), base_url: mock.url, models: MODEL },
  });
  expect(created.body.success).toBe(true);
  const singleIds = [
    await addChannel(root, { name: 'aff-a', key: 'aff-a', baseUrl: mock.url, models: MODEL }),
    await addChannel(root, { name: 'aff-b', key: 'aff-b', baseUrl: mock.url, models: MODEL }),
  ];
  for (const k of KEYS) mock.behaviors.set(k, { cachedTokens: CACHED_TOKENS });
  return { multiKeyId: created.body.data!.ids[0]!, singleIds };
}

/** new-api's refusal: success false with the code (and its values) the console words. */
function refusedWith(res: CallResult, code: ErrorCode, params: Record<string, unknown>): void {
  const body = res.body as { success: boolean; code?: string; params?: Record<string, unknown> };
  expect(body.success).toBe(false);
  expect(body.code).toBe(code);
  expect(body.params).toMatchObject(params);
}

let turn = 0;
async function call(c: Cluster, session: string | undefined): Promise<number> {
  const base = c.bases[turn++ % c.bases.length]!;
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      ...(session ? { prompt_cache_key: session } : {}),
    }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The upstream keys that received the session's calls, in order. */
const keysOf = (mock: MockUpstream, session: string): string[] =>
  mock.requests
    .filter((r) => (r.body as { prompt_cache_key?: string })?.prompt_cache_key === session)
    .map((r) => r.key);

const lookups = async (result: string): Promise<number> =>
  (await metrics.getSingleMetric('tollway_affinity_lookups_total')!.get()).values.find(
    (v) => v.labels.result === result,
  )?.value ?? 0;

/** Disables the key (of the multi-key channel) or the channel that `key` names. */
async function disableKey(c: Cluster, key: string): Promise<void> {
  const index = KEYS.indexOf(key);
  const res =
    index < 3
      ? await c.root.call('POST', '/api/channel/multi_key/manage', {
          channel_id: c.multiKeyId,
          action: 'disable_key',
          key_index: index,
        })
      : await c.root.call('PUT', '/api/channel/', { id: c.singleIds[index - 3], status: 2 });
  expect(res.body.success, res.body.message).toBe(true);
}

function affinityScenario(cluster: () => Cluster, settle: () => Promise<void>) {
  it('keeps a session on one channel and key across 50 calls, while calls without a session spread', async () => {
    const c = cluster();
    for (let i = 0; i < SESSION_CALLS; i++) expect(await call(c, 'sess-one')).toBe(200);
    const used = keysOf(c.mock, 'sess-one');
    expect(used).toHaveLength(SESSION_CALLS);
    expect(new Set(used).size).toBe(1);
    const before = c.mock.requests.length;
    for (let i = 0; i < 30; i++) expect(await call(c, undefined)).toBe(200);
    // Five keys with equal chances: 30 calls on one key alone would be a (1/5)^29 event.
    expect(new Set(c.mock.requests.slice(before).map((r) => r.key)).size).toBeGreaterThan(1);
    expect(await lookups('hit')).toBeGreaterThanOrEqual(SESSION_CALLS - 1);

    // The cache's statistics name the rule; the session's usage is found by the fingerprint its log row shows.
    const stats = await c.root.call<{ total: number; by_rule_name: Record<string, number> }>(
      'GET',
      '/api/option/channel_affinity_cache',
    );
    expect(stats.body.data!.by_rule_name[RULE]).toBeGreaterThanOrEqual(1);
    await settle();
    const logs = await c.root.call<{ items: { other: string }[] }>('GET', '/api/log/?p=1&page_size=40&type=2');
    const info = logs.body
      .data!.items.map((row) => JSON.parse(row.other).admin_info?.channel_affinity)
      .find((a) => a !== undefined);
    expect(info).toMatchObject({ rule_name: RULE, key_source: 'gjson', key_path: 'prompt_cache_key' });
    const usage = await c.root.call<{ total: number; hit: number; cached_tokens: number }>(
      'GET',
      `/api/log/channel_affinity_usage_cache?rule_name=${encodeURIComponent(RULE)}&using_group=default&key_fp=${info.key_fp}`,
    );
    expect(usage.body.data!.total).toBeGreaterThanOrEqual(1);
    expect(usage.body.data!.hit).toBe(usage.body.data!.total);

    // Every served call read CACHED_TOKENS of its 12 prompt tokens from the provider's cache.
    const ratios = await c.root.call<{ channel_id: number; prompt_tokens: number; hit_ratio: number }[]>(
      'GET',
      '/api/channel/prompt_cache',
    );
    const served = ratios.body.data!.filter((r) => r.prompt_tokens > 0);
    expect(served.length).toBeGreaterThan(0);
    for (const r of served) expect(r.hit_ratio).toBeCloseTo(CACHED_TOKENS / 12, 5);
  });

  it('moves within the call when the pinned key fails, stays on the new pin, and never goes back to a disabled key', async () => {
    const c = cluster();
    const pinned = keysOf(c.mock, 'sess-one').at(-1)!;
    c.mock.behaviors.set(pinned, { failStatus: 503 });
    expect(await call(c, 'sess-one')).toBe(200);
    const [failed, moved] = keysOf(c.mock, 'sess-one').slice(-2);
    expect(failed).toBe(pinned);
    expect(moved).not.toBe(pinned);
    for (let i = 0; i < 10; i++) expect(await call(c, 'sess-one')).toBe(200);
    expect(keysOf(c.mock, 'sess-one').slice(-10)).toEqual(Array(10).fill(moved));

    // The new pin's key is disabled: the session is routed afresh and never sent there again, nor to the failed
    // key, healed now but disabled too.
    c.mock.behaviors.set(pinned, { cachedTokens: CACHED_TOKENS });
    await disableKey(c, moved!);
    await disableKey(c, pinned);
    await settle();
    const dropped = await lookups('dropped');
    for (let i = 0; i < 20; i++) expect(await call(c, 'sess-one')).toBe(200);
    const after = keysOf(c.mock, 'sess-one').slice(-20);
    expect(after).not.toContain(moved);
    expect(after).not.toContain(pinned);
    expect(new Set(after).size).toBe(1);
    expect(await lookups('dropped')).toBeGreaterThan(dropped);
  });

  it('clears by rule or all, refuses an unknown rule, and is root-only', async () => {
    const c = cluster();
    refusedWith(
      await c.root.call('DELETE', '/api/option/channel_affinity_cache?rule_name=nope'),
      ErrorCode.AffinityRuleUnknown,
      { rule: 'nope' },
    );
    refusedWith(await c.root.call('DELETE', '/api/option/channel_affinity_cache'), ErrorCode.FieldRequired, {
      field: 'rule_name',
    });
    const cleared = await c.root.call<{ deleted: number }>(
      'DELETE',
      `/api/option/channel_affinity_cache?rule_name=${encodeURIComponent(RULE)}`,
    );
    expect(cleared.body.data!.deleted).toBeGreaterThanOrEqual(1);
    const stats = await c.root.call<{ total: number }>('GET', '/api/option/channel_affinity_cache');
    expect(stats.body.data!.total).toBe(0);
    expect(
      (await c.root.call<{ deleted: number }>('DELETE', '/api/option/channel_affinity_cache?all=true')).body.data,
    ).toEqual({ deleted: 0 });
  });
}

describe('channel affinity on one node (SQLite, pins in memory)', () => {
  const c: Partial<Cluster> = {};
  const gw = useGateway(
    'sqlite',
    { user: 'affinity-user', quota: 100_000_000, users: ['affinity-admin'] },
    async (g) => {
      Object.assign(c, await addChannels(g.root, g.mock), { root: g.root, mock: g.mock, key: g.key, bases: [g.base] });
    },
  );
  affinityScenario(
    () => c as Cluster,
    () => gw.t.runtime.ctx.relay.writer.flush(),
  );

  it('lets only root read or clear the pins', async () => {
    const admin = gw.users[0]!;
    expect((await admin.call('GET', '/api/option/channel_affinity_cache')).status).toBe(403);
  });
});

describe('channel affinity on two nodes (PostgreSQL + Redis, pins shared)', () => {
  const c: Partial<Cluster> = {};
  let nodes: TestApp[] = [];
  useTwoNodes({}, async ({ a, b }) => {
    const mock = await startMockUpstream();
    const root = await setupRoot(a.app);
    const ids = await addChannels(root, mock);
    const u = await createUserClient(a.app, root, 'aff-cluster-user');
    await setQuota(root, u.userId!, 100_000_000);
    const key = (await addToken(a, u.userId!, {})).key;
    nodes = [a, b];
    Object.assign(c, ids, { root, mock, key, bases: [await listen(a), await listen(b)] });
    for (let i = 0; i < 200 && !b.runtime.ctx.channelCache.hasModel('default', MODEL); i++)
      await new Promise((r) => setTimeout(r, 25));
  });
  afterAll(async () => c.mock?.close());
  affinityScenario(
    () => c as Cluster,
    async () => {
      // Both nodes see the disabled keys and channels before the next call, and their logs are written.
      await Promise.all(nodes.map((n) => n.runtime.ctx.channelCache.reload()));
      await Promise.all(nodes.map((n) => n.runtime.ctx.relay.writer.flush()));
    },
  );
});
