import { Counter } from 'prom-client';
import { metrics, setChannelHealth } from '../../lib/metrics.js';
import type { ChannelBreakers } from './breakers.js';

const transitions = new Counter({
  name: 'tollway_channel_breaker_transitions_total',
  help: 'Breaker state changes made on this node, by channel and new state (keys of multi-key channels included)',
  labelNames: ['channel', 'state'] as const,
  registers: [metrics],
});

/** The health gauge follows every state this node's channel breakers take; changes made here are counted. */
export function exportBreakerMetrics(breakers: ChannelBreakers): void {
  breakers.onState((channelId, state) => setChannelHealth(channelId, state));
  breakers.onTransition((target, t) => transitions.inc({ channel: target.split(':')[0], state: t.state }));
}
