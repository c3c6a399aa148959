import { Gauge } from 'prom-client';
import { metrics } from '../../lib/metrics.js';
import type { ChannelLoad } from './channel-load.js';

/** The load the gauges read at each scrape (the process's runtime; the last one started in a test process). */
let exported: ChannelLoad | undefined;

new Gauge({
  name: 'tollway_channel_inflight',
  help: 'Upstream calls in flight per channel on this node (what the least_inflight routing strategy compares)',
  labelNames: ['channel'] as const,
  registers: [metrics],
  collect() {
    this.reset();
    for (const v of exported?.view() ?? []) this.labels(String(v.channelId)).set(v.inflight);
  },
});

new Gauge({
  name: 'tollway_channel_latency_ewma_ms',
  help: 'EWMA of the time to the upstream first byte per channel on this node, ms (what the latency and lowest_price routing strategies compare); absent without a sample in the last minute',
  labelNames: ['channel'] as const,
  registers: [metrics],
  collect() {
    this.reset();
    for (const v of exported?.view() ?? [])
      if (v.latencyMs !== undefined) this.labels(String(v.channelId)).set(Math.round(v.latencyMs * 10) / 10);
  },
});

/** /metrics shows `load` per channel from now on: read at each scrape, nothing is done per call. */
export function exportChannelLoadMetrics(load: ChannelLoad): void {
  exported = load;
}
