import crypto from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryOneTimeCodes } from '../../src/lib/one-time-codes.js';
import { MemoryWindowCounters } from '../../src/lib/window-counters.js';
import { MemoryLimitStore } from '../../src/relay/limits/memory-store.js';
import { MemoryConcurrencyStore, type ConcurrencyLease } from '../../src/relay/limits/concurrency-store.js';
import { MemoryPeriodStore } from '../../src/core/period-limits/memory-store.js';
import { UNKNOWN_KEY_CACHE_MAX } from '../../src/relay/entry/auth-cache.js';
import type { RelayContext } from '../../src/relay/pipeline/services.js';
import { BoundedMap } from '../../src/lib/bounded-map.js';
import { seenTokenIds } from '../../src/modules/custom-oauth/backchannel.js';
import { MemoryOneTimeStore, passkeyOneTimeOf } from '../../src/modules/passkeys/challenges.js';
import { useApp } from '../support/fixture.js';
import { listen } from '../support/gateway.js';
import { MemoryAffinityStore } from '../../src/core/routing/affinity-store.js';
import { ResponseCache } from '../../src/relay/cache/response-cache.js';
import { readCacheRules } from '../../src/relay/cache/rules.js';
import type { AnswerStore } from '../../src/relay/cache/store.js';
import { LocalBus } from '../../src/lib/cluster-bus.js';
import { MCP_SESSIONS_MAX, MCP_SESSIONS_PER_TOKEN } from '../../src/relay/mcp/sessions.js';
import { addToken } from '../support/gateway.js';

const NO_USAGE = { promptTokens: 0, completionTokens: 0, reported: false };

/**
 * Issue 31, hole 4 and "bounded state": every in-memory map keyed by what a caller sends is bounded. Each
 * caller-keyed surface is driven over real sockets (its route reaches the bounded store), then 100,000 distinct
 * values go to the store the route uses (unknown API keys into the key cache, each a real database miss; client
 * addresses into the rate limiter; e-mail addresses into the one-time codes; ids into the relay's limit
 * buckets). The maps stay within their caps, and once a map is full the heap after a full collection grows by
 * no more than a few MB up to the 100,000th value (unbounded, the last 80,000 unknown keys cost about 8.5 MB,
 * the last 40,000 addresses about 10 MB). MCP sessions (issue 39) cost far more each, so fewer are opened, all
 * over /mcp: by one token and by 2,000 (unbounded, 512 sessions of one token cost about 13.8 MB).
 */
const DISTINCT = 100_000;
/** Values sent before the heap is first measured: past the cap of the map under test, so a bounded one is full. */
const KEY_WARM_UP = 20_000;
const COUNTER_WARM_UP = 60_000;
const OVER_HTTP = 3_000;
const PARALLEL = 32;
const FLAT_BYTES = 4 * 1024 * 1024;
const CRITICAL_LIMIT = 5;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** Runs `send(i)` for i in [from, to), PARALLEL at a time. */
async function flood(from: number, to: number, send: (i: number) => Promise<unknown>): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < to) await send(next++);
    }),
  );
}

/** The heap growth between the `warmUp`-th and the DISTINCT-th value sent. */
async function heapGrowth(warmUp: number, send: (i: number) => Promise<unknown>): Promise<number> {
  await flood(0, warmUp, send);
  const before = heapAfterGc();
  await flood(warmUp, DISTINCT, send);
  return heapAfterGc() - before;
}

/** The heap growth between the `warmUp`-th and the `total`-th MCP session opened (PARALLEL at a time). */
async function sessionHeapGrowth(
  warmUp: number,
  total: number,
  open: (i: number) => Promise<unknown>,
): Promise<number> {
  await flood(0, warmUp, open);
  const before = heapAfterGc();
  await flood(warmUp, total, open);
  return heapAfterGc() - before;
}

const randomKey = () => `sk-${crypto.randomBytes(24).toString('base64url')}`;
const addressOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

describe('bounded state under 100,000 distinct caller values', () => {
  let base = '';
  const fx = useApp(
    'sqlite',
    { env: { CRITICAL_RATE_LIMIT: String(CRITICAL_LIMIT), TRUST_PROXY: 'true' } },
    async (app) => {
      base = await listen(app.t);
    },
  );
  const ctx = () => fx.t.runtime.ctx as RelayContext;
  // Each case on connections of its own: a case's in-process phase (100,000 awaited lookups, no I/O read) can outlast
  // the server's keep-alive timeout (72 s) on a slow machine, and the next case's POST then went out on a connection
  // the server had closed while nothing read its close (ECONNRESET).
  beforeEach(async () => {
    const previous = getGlobalDispatcher();
    setGlobalDispatcher(new Agent());
    await previous.close();
  });

  it(
    'unknown API keys: /v1/models refuses them through the key cache, which stays within its cap while the heap stays flat',
    { timeout: 900_000 },
    async () => {
      const tokens = ctx().relay.tokens;
      await flood(0, OVER_HTTP, async () => {
        const r = await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${randomKey()}` } });
        await r.arrayBuffer();
        expect(r.status).toBe(401);
      });
      expect(tokens.size).toBeGreaterThan(0);
      const growth = await heapGrowth(KEY_WARM_UP, async () => expect(await tokens.get(randomKey())).toBeUndefined());
      expect(growth).toBeLessThan(FLAT_BYTES);
      expect(tokens.size).toBeLessThanOrEqual(tokens.capacity);
      // Only unknown keys were sent: their own cap holds them all.
      expect(tokens.size).toBeLessThanOrEqual(UNKNOWN_KEY_CACHE_MAX);
      expect(UNKNOWN_KEY_CACHE_MAX).toBeLessThan(KEY_WARM_UP);
    },
  );

  it(
    'client addresses: the login rate limit counts them in counters that stay within their cap while the heap stays flat, and still limits',
    { timeout: 900_000 },
    async () => {
      const counters = ctx().counters as MemoryWindowCounters;
      const login = (address: string) =>
        fetch(`${base}/api/user/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
          body: '{}',
        }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        });
      const before = counters.size;
      await flood(0, OVER_HTTP, async (i) => expect(await login(addressOf(DISTINCT + i))).not.toBe(429));
      expect(counters.size).toBeGreaterThanOrEqual(before + OVER_HTTP);
      const growth = await heapGrowth(COUNTER_WARM_UP, (i) =>
        ctx().rateLimiter(`critical:${addressOf(i)}`, CRITICAL_LIMIT, ctx().config.criticalRateLimitDuration),
      );
      expect(growth).toBeLessThan(FLAT_BYTES);
      expect(counters.size).toBeLessThanOrEqual(counters.capacity);
      expect(counters.capacity).toBeLessThan(COUNTER_WARM_UP);
      // An address seen just now is still limited.
      const statuses: number[] = [];
      for (let n = 0; n <= CRITICAL_LIMIT + 1; n++) statuses.push(await login('192.0.2.99'));
      expect(statuses.at(-1)).toBe(429);
    },
  );

  it('one-time codes, window counters and relay limit buckets keyed by 100,000 values stay within their caps', async () => {
    const codes = new MemoryOneTimeCodes();
    const counters = new MemoryWindowCounters();
    const limits = new MemoryLimitStore();
    const now = Date.now();
    for (let i = 0; i < DISTINCT; i++) {
      await codes.put(`mail:${i}@example.com`, 'code', 600_000);
      counters.incr(`critical:${addressOf(i)}`, 1200, now);
      limits.check([{ level: 'token', id: String(i), rpm: 10, tpm: 0 }], 1, now);
    }
    expect(codes.size).toBeLessThanOrEqual(codes.capacity);
    expect(counters.size).toBeLessThanOrEqual(counters.capacity);
    expect(limits.size).toBeLessThanOrEqual(limits.capacity);
    expect(Math.max(codes.capacity, counters.capacity, limits.capacity)).toBeLessThan(DISTINCT);
    // The most recent entries are kept.
    expect(await codes.consume(`mail:${DISTINCT - 1}@example.com`, 'code')).toBe(true);
    expect(counters.get(`critical:${addressOf(DISTINCT - 1)}`, 1200, now)).toBe(1);
  });

  it('passkey challenges handed to anyone (login/begin) stay within their cap, the newest kept; logout token ids too', async () => {
    expect((await fx.root.call('PUT', '/api/option/', { key: 'passkey.enabled', value: 'true' })).body.success).toBe(
      true,
    );
    const store = passkeyOneTimeOf(fx.t.runtime.ctx);
    expect(store).toBeInstanceOf(MemoryOneTimeStore);
    const challenges = store as MemoryOneTimeStore;
    await flood(0, OVER_HTTP, async (i) => {
      const r = await fetch(`${base}/api/user/passkey/login/begin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': addressOf(2 * DISTINCT + i) },
        body: '{}',
      });
      expect(((await r.json()) as { success: boolean }).success).toBe(true);
    });
    expect(challenges.size).toBeGreaterThanOrEqual(OVER_HTTP);
    for (let i = 0; i < DISTINCT; i++) await challenges.put(`challenge-${i}`, 'v', 120_000);
    expect(challenges.size).toBeLessThanOrEqual(challenges.capacity);
    expect(challenges.capacity).toBeLessThan(DISTINCT);
    expect(await challenges.take(`challenge-${DISTINCT - 1}`)).toBe('v');
    // Back-channel logout token ids (only a provider's signed tokens reach it) are held the same way.
    expect(seenTokenIds).toBeInstanceOf(BoundedMap);
    expect(seenTokenIds.capacity).toBeLessThan(DISTINCT);
  });

  it('channel affinity pins and session usage keyed by 100,000 session values stay within max_entries, the newest kept', async () => {
    const cap = 1_000;
    const set = await fx.root.call('PUT', '/api/option/', {
      key: 'channel_affinity_setting.max_entries',
      value: String(cap),
    });
    expect(set.body.success).toBe(true);
    const affinity = ctx().affinity;
    const caller = { tokenId: 1, userId: 1, tokenName: '', tokenGroup: '', username: 'u', userGroup: 'default' };
    const pin = { channelId: 1, keyIndex: 0, model: 'gpt-4o' };
    let last = '';
    for (let i = 0; i < DISTINCT; i++) {
      const headers = {};
      const m = affinity.match(
        { model: 'gpt-4o', path: '/v1/chat/completions', headers, body: { prompt_cache_key: `session-${i}` } },
        caller,
        'default',
      )!;
      affinity.served(m, undefined, pin);
      affinity.usage.observe({
        rule: m.rule.name,
        group: 'default',
        fingerprint: m.fingerprint,
        windowMs: 60_000,
        mode: 'cached_over_prompt',
        promptTokens: 1,
        completionTokens: 1,
        cachedTokens: 0,
      });
      last = m.key;
    }
    const store = affinity.store;
    expect(store).toBeInstanceOf(MemoryAffinityStore);
    expect((await store.keys()).length).toBeLessThanOrEqual(cap);
    expect(store.get(last)).toEqual(pin);
    expect(affinity.usage.memory.size).toBeLessThanOrEqual(cap);
  });

  it('concurrency counts of 100,000 tokens keep an entry only while a call is in flight', () => {
    const store = new MemoryConcurrencyStore();
    const running: ConcurrencyLease[] = [];
    for (let i = 0; i < DISTINCT; i++) {
      const lease = store.acquire([
        { level: 'token', id: String(i), limit: 1 },
        { level: 'user', id: String(i % 100), limit: DISTINCT },
      ]);
      if (typeof lease === 'number') throw new Error(`call ${i} refused`);
      // One call in a thousand is still running; the others ended.
      if (i % 1000 === 0) running.push(lease);
      else store.release(lease);
    }
    // 100 tokens with a call in flight, and their one user (ids 0, 1000, … all map to user 0).
    expect(store.size).toBe(running.length + 1);
    for (const lease of running) store.release(lease);
    expect(store.size).toBe(0);
  });

  it('the response cache index of 100,000 stored keys stays within max_entries, the newest kept', async () => {
    const cap = 1_000;
    const set = await fx.root.call('PUT', '/api/option/', { key: 'response_cache.max_entries', value: String(cap) });
    expect(set.body.success).toBe(true);
    const answer = { model: 'm', status: 200, contentType: 'application/json', body: '{}', usage: NO_USAGE };
    const kept: AnswerStore = {
      get: async () => ({ ...answer, expiresAt: Date.now() + 60_000 }),
      put: async () => [],
      delete: async () => undefined,
      keys: async () => [],
    };
    const cache = new ResponseCache(ctx().options, kept, new LocalBus(), ctx().log);
    await cache.start();
    const rules = readCacheRules(ctx().options);
    const match = (i: number) => ({ key: `key-${i}`, scope: 't:1', rules, capture: undefined });
    for (let i = 0; i < DISTINCT; i++) cache.save(match(i), { ...answer, expiresAt: Date.now() + 60_000 });
    await cache.idle();
    expect(cache.indexed).toBeLessThanOrEqual(cap);
    expect(await cache.find(match(DISTINCT - 1))).toBeDefined();
  });

  it(
    'MCP sessions opened in parallel: 16 per token and 1,000 in all stay open, the oldest ended, while the heap stays flat',
    { timeout: 900_000 },
    async () => {
      const rpc = (key: string, method: string, sid?: string) =>
        fetch(`${base}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(sid ? { 'mcp-session-id': sid } : {}),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method,
            params:
              method === 'initialize'
                ? { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } }
                : {},
          }),
        });
      const open = async (key: string): Promise<string> => {
        const r = await rpc(key, 'initialize');
        await r.arrayBuffer();
        expect(r.status).toBe(200);
        return r.headers.get('mcp-session-id')!;
      };
      /** How many of the sessions still answer (a ping: it opens nothing). */
      const alive = async (opened: { key: string; sid: string }[]) => {
        let n = 0;
        await flood(0, opened.length, async (i) => {
          const r = await rpc(opened[i]!.key, 'ping', opened[i]!.sid);
          await r.arrayBuffer();
          expect([200, 404]).toContain(r.status);
          if (r.status === 200) n++;
        });
        return n;
      };
      const userId = fx.root.userId!;

      // One token opening sessions PARALLEL at a time keeps MCP_SESSIONS_PER_TOKEN, the newest.
      const one = (await addToken(fx.t, userId, { name: 'mcp-one' })).key;
      const mine: { key: string; sid: string }[] = [];
      await flood(0, MCP_SESSIONS_PER_TOKEN * 8, async () => mine.push({ key: one, sid: await open(one) }));
      expect(await alive(mine)).toBe(MCP_SESSIONS_PER_TOKEN);
      expect(await alive(mine.slice(-1))).toBe(1);
      const growthOne = await sessionHeapGrowth(MCP_SESSIONS_PER_TOKEN * 8, MCP_SESSIONS_PER_TOKEN * 40, () =>
        open(one),
      );
      expect(growthOne).toBeLessThan(FLAT_BYTES);

      // Many tokens, one session each, past the cap in all: MCP_SESSIONS_MAX stay open, the oldest were ended.
      const many = MCP_SESSIONS_MAX * 2;
      const keys: string[] = [];
      for (let i = 0; i < many; i++) keys.push((await addToken(fx.t, userId, { name: `mcp-${i}` })).key);
      const theirs: { key: string; sid: string }[] = [];
      const growthMany = await sessionHeapGrowth(MCP_SESSIONS_MAX, many, async (i) =>
        theirs.push({ key: keys[i]!, sid: await open(keys[i]!) }),
      );
      expect(growthMany).toBeLessThan(FLAT_BYTES);
      expect(await alive(theirs)).toBe(MCP_SESSIONS_MAX);
      expect(await alive(theirs.slice(0, many - MCP_SESSIONS_MAX))).toBe(0);
    },
  );

  it('period-limit counters of more owners than their cap stay within it, the newest kept', () => {
    const store = new MemoryPeriodStore();
    const now = Date.now();
    const owners = store.capacity + 1_000;
    const counter = (i: number) => ({
      level: 'token' as const,
      period: 'day' as const,
      key: `token:${i}:day`,
      limit: 10,
      slot: -1,
      endsAt: now + 3_600_000,
    });
    for (let i = 0; i < owners; i++) store.take([counter(i)], 1, 1, now);
    expect(store.size).toBeLessThanOrEqual(store.capacity);
    expect(store.has(counter(owners - 1).key, now)).toBe(true);
  });
});
