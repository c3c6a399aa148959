import { Counter, Gauge } from 'prom-client';
import { BoundedLabel, metrics } from '../lib/metrics.js';

/** What the gauges read of one upstream origin's pool (undici's pool stats). */
export interface OriginPoolStats {
  /** Calls waiting for a connection of this origin. */
  queued: number;
  /** Open connections. */
  connected: number;
  /** Calls being answered. */
  running: number;
}

/** Most distinct origins given a series of their own; later ones count as `other`. */
const MAX_ORIGINS = 200;
const origins = new BoundedLabel(MAX_ORIGINS);

/** The pools the gauges read at scrape time (the relay's, set at bootstrap; nothing is recorded per call). */
let watched: { stats(): Map<string, OriginPoolStats> } | undefined;

/** The gauge's value per origin of one field of the pools' stats. */
function setPerOrigin(g: Gauge<'origin'>, field: keyof OriginPoolStats): void {
  g.reset();
  if (!watched) return;
  for (const [origin, s] of watched.stats()) g.inc({ origin: origins.of(origin) }, s[field]);
}

new Gauge({
  name: 'tollway_upstream_queued_requests',
  help: 'Relay calls waiting for a connection to their upstream origin (every connection the limit allows is busy)',
  labelNames: ['origin'] as const,
  registers: [metrics],
  collect() {
    setPerOrigin(this, 'queued');
  },
});
new Gauge({
  name: 'tollway_upstream_connections',
  help: 'Open connections to each upstream origin',
  labelNames: ['origin'] as const,
  registers: [metrics],
  collect() {
    setPerOrigin(this, 'connected');
  },
});
new Gauge({
  name: 'tollway_upstream_running_requests',
  help: 'Relay calls being answered by each upstream origin',
  labelNames: ['origin'] as const,
  registers: [metrics],
  collect() {
    setPerOrigin(this, 'running');
  },
});
const waits = new Counter({
  name: 'tollway_upstream_connection_waits_total',
  help: 'Relay calls that had to wait for a free connection to their upstream origin (RELAY_MAX_CONNS_PER_HOST or a channel max_conns_per_host reached)',
  labelNames: ['origin'] as const,
  registers: [metrics],
});

/** The upstream pools' gauges and the count of calls that waited. */
export const upstreamMetrics = {
  watch(pools: NonNullable<typeof watched>): void {
    watched = pools;
  },
  unwatch(pools: NonNullable<typeof watched>): void {
    if (watched === pools) watched = undefined;
  },
  /** A call waits for a connection (counted only then: a pool with room adds nothing per call). */
  waited(origin: string): void {
    waits.inc({ origin: origins.of(origin) });
  },
};
