import type { Logger } from 'pino';
import type { Agent, Dispatcher } from 'undici';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { upstreamMetrics, type OriginPoolStats } from '../../observability/upstream-metrics.js';
import { createUpstreamAgent, type ConnectionSettings } from './agent.js';

/** At most one "calls wait for a connection" line per origin in this many ms. */
const WAIT_LOG_INTERVAL_MS = 10_000;

/** A channel's own connection settings (setting.max_conns_per_host, setting.http2_enabled) over the process's. */
export function channelConnectionSettings(
  ch: Pick<CachedChannel, 'setting'>,
  base: ConnectionSettings,
): ConnectionSettings {
  const max = Number(ch.setting.max_conns_per_host);
  const h2 = ch.setting.http2_enabled;
  return {
    maxConnsPerHost: Number.isInteger(max) && max >= 0 ? max : base.maxConnsPerHost,
    http2: h2 === true || h2 === 'true' ? true : h2 === false || h2 === 'false' ? false : base.http2,
  };
}

/** True when a channel's setting names a connection key (it then has pools of its own). */
const hasOwnSettings = (ch: Pick<CachedChannel, 'setting'>): boolean =>
  ch.setting.max_conns_per_host !== undefined || ch.setting.http2_enabled !== undefined;

const sameSettings = (a: ConnectionSettings, b: ConnectionSettings): boolean =>
  a.maxConnsPerHost === b.maxConnsPerHost && a.http2 === b.http2;

/** A channel's own pools and the settings they were made with. */
interface OwnAgent {
  agent: Agent;
  settings: ConnectionSettings;
}

/**
 * The upstream connection pools: one shared agent with the process's settings (RELAY_MAX_CONNS_PER_HOST,
 * RELAY_HTTP2_ENABLED), and an agent of its own for each channel whose setting names other values. A call
 * waiting for a connection is counted and logged (rate-limited per origin).
 */
export class UpstreamPools {
  private readonly shared: Agent;
  private readonly own = new Map<number, OwnAgent>();
  private readonly lastWaitLog = new Map<string, number>();

  constructor(
    private readonly base: ConnectionSettings,
    private readonly bodyTimeoutMs: number,
    private readonly log: Logger,
  ) {
    this.shared = this.agentOf(base);
    upstreamMetrics.watch(this);
  }

  /** The dispatcher of a channel's calls (the shared one unless its setting names a connection key). */
  for(ch: Pick<CachedChannel, 'id' | 'setting'>): Dispatcher {
    if (!hasOwnSettings(ch)) return this.shared;
    return this.ownAgent(ch);
  }

  /**
   * After the channels changed: the own pools of a channel that is gone, no longer names a connection key, or
   * names other values are closed once their calls (running and queued) finish.
   */
  channelsChanged(channels: { get(id: number): Pick<CachedChannel, 'id' | 'setting'> | undefined }): void {
    for (const [id, held] of this.own) {
      const ch = channels.get(id);
      if (ch && hasOwnSettings(ch) && sameSettings(held.settings, channelConnectionSettings(ch, this.base))) continue;
      this.own.delete(id);
      void held.agent.close().catch(() => undefined);
    }
  }

  private ownAgent(ch: Pick<CachedChannel, 'id' | 'setting'>): Dispatcher {
    const settings = channelConnectionSettings(ch, this.base);
    const held = this.own.get(ch.id);
    if (held && sameSettings(held.settings, settings)) return held.agent;
    // Changed settings: new calls use new pools; the old ones finish their calls and close.
    if (held) void held.agent.close().catch(() => undefined);
    const agent = this.agentOf(settings);
    this.own.set(ch.id, { agent, settings });
    return agent;
  }

  private agentOf(settings: ConnectionSettings): Agent {
    return createUpstreamAgent({
      bodyTimeoutMs: this.bodyTimeoutMs,
      connections: settings,
      onQueued: (origin, queued, limit) => this.queued(origin, queued, limit),
    });
  }

  private queued(origin: string, queued: number, limit: number): void {
    upstreamMetrics.waited(origin);
    const now = Date.now();
    if (now - (this.lastWaitLog.get(origin) ?? 0) < WAIT_LOG_INTERVAL_MS) return;
    this.lastWaitLog.set(origin, now);
    this.log.warn(
      { origin, queued, limit },
      'relay: calls wait for an upstream connection (connection limit per origin reached; RELAY_MAX_CONNS_PER_HOST or the channel setting max_conns_per_host)',
    );
  }

  /** Per origin, the pools' counts summed over the shared and the channels' own agents. */
  stats(): Map<string, OriginPoolStats> {
    const out = new Map<string, OriginPoolStats>();
    for (const agent of [this.shared, ...[...this.own.values()].map((o) => o.agent)]) {
      for (const [origin, s] of Object.entries(agent.stats)) {
        const sum = out.get(origin) ?? { queued: 0, connected: 0, running: 0 };
        // Pools give counts; a single client (never made here) would say whether it is connected.
        sum.queued += 'queued' in s ? s.queued : 0;
        sum.connected += Number(s.connected);
        sum.running += s.running;
        out.set(origin, sum);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    upstreamMetrics.unwatch(this);
    await Promise.all([this.shared.close(), ...[...this.own.values()].map((o) => o.agent.close())]);
  }
}
