import pino from 'pino';
import type { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { channelConnectionSettings, UpstreamPools } from '../../src/relay/upstream/pools.js';

const BASE = { maxConnsPerHost: 0, http2: false };

describe('upstream connection settings', () => {
  it('RELAY_MAX_CONNS_PER_HOST and RELAY_HTTP2_ENABLED: no limit and HTTP/1.1 by default; a negative or fractional limit is refused', () => {
    const env = { SESSION_SECRET: 'x'.repeat(32) };
    expect(loadConfig(env)).toMatchObject({ relayMaxConnsPerHost: 0, relayHttp2: false });
    expect(loadConfig({ ...env, RELAY_MAX_CONNS_PER_HOST: '500', RELAY_HTTP2_ENABLED: 'true' })).toMatchObject({
      relayMaxConnsPerHost: 500,
      relayHttp2: true,
    });
    expect(() => loadConfig({ ...env, RELAY_MAX_CONNS_PER_HOST: '-1' })).toThrow(/RELAY_MAX_CONNS_PER_HOST/);
    expect(() => loadConfig({ ...env, RELAY_MAX_CONNS_PER_HOST: '2.5' })).toThrow(/RELAY_MAX_CONNS_PER_HOST/);
  });

  it("a channel's setting keys override the process's; numbers and booleans may come as text; anything else is ignored", () => {
    expect(channelConnectionSettings({ setting: {} }, { maxConnsPerHost: 64, http2: true })).toEqual({
      maxConnsPerHost: 64,
      http2: true,
    });
    expect(channelConnectionSettings({ setting: { max_conns_per_host: 200, http2_enabled: true } }, BASE)).toEqual({
      maxConnsPerHost: 200,
      http2: true,
    });
    expect(channelConnectionSettings({ setting: { max_conns_per_host: '300', http2_enabled: 'true' } }, BASE)).toEqual({
      maxConnsPerHost: 300,
      http2: true,
    });
    expect(
      channelConnectionSettings(
        { setting: { max_conns_per_host: 0, http2_enabled: 'false' } },
        { maxConnsPerHost: 64, http2: true },
      ),
    ).toEqual({
      maxConnsPerHost: 0,
      http2: false,
    });
    expect(channelConnectionSettings({ setting: { max_conns_per_host: -5, http2_enabled: 'yes' } }, BASE)).toEqual(
      BASE,
    );
    expect(channelConnectionSettings({ setting: { max_conns_per_host: 'many', http2_enabled: 1 } }, BASE)).toEqual(
      BASE,
    );
  });

  it('channels without connection keys share one dispatcher; a channel with them has its own, kept until its settings change', async () => {
    const pools = new UpstreamPools(BASE, 1000, pino({ level: 'silent' }));
    try {
      const shared = pools.for({ id: 1, setting: { rpm_limit: 5 } });
      expect(pools.for({ id: 2, setting: {} })).toBe(shared);
      const own = pools.for({ id: 3, setting: { max_conns_per_host: 10 } });
      expect(own).not.toBe(shared);
      expect(pools.for({ id: 3, setting: { max_conns_per_host: 10 } })).toBe(own);
      expect(pools.for({ id: 4, setting: { max_conns_per_host: 10 } })).not.toBe(own);
      const changed = pools.for({ id: 3, setting: { max_conns_per_host: 20 } });
      expect(changed).not.toBe(own);
      expect((own as Agent).closed).toBe(true);
    } finally {
      await pools.close();
    }
  });
  it("after the channels change, a channel's own dispatcher closes when the channel is gone, drops its keys or names other values", async () => {
    const pools = new UpstreamPools(BASE, 1000, pino({ level: 'silent' }));
    try {
      const kept = pools.for({ id: 1, setting: { max_conns_per_host: 10 } }) as Agent;
      const gone = pools.for({ id: 2, setting: { http2_enabled: true } }) as Agent;
      const dropped = pools.for({ id: 3, setting: { max_conns_per_host: 10 } }) as Agent;
      const changed = pools.for({ id: 4, setting: { max_conns_per_host: 10 } }) as Agent;
      const now = new Map([
        [1, { id: 1, setting: { max_conns_per_host: '10' } }],
        [3, { id: 3, setting: { rpm_limit: 5 } }],
        [4, { id: 4, setting: { max_conns_per_host: 20 } }],
      ]);
      pools.channelsChanged(now);
      await new Promise((r) => setImmediate(r));
      expect([kept.closed, gone.closed, dropped.closed, changed.closed]).toEqual([false, true, true, true]);
      expect(pools.for({ id: 1, setting: { max_conns_per_host: 10 } })).toBe(kept);
    } finally {
      await pools.close();
    }
  });
});
