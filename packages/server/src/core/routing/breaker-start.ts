import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterBus } from '../../lib/cluster-bus.js';
import type { OptionsService } from '../options/service.js';
import { exportBreakerMetrics } from './breaker-metrics.js';
import { BreakerSettingsCache } from './breaker-settings.js';
import { BreakerSync } from './breaker-sync.js';
import { ChannelBreakers } from './breakers.js';

/** The node's channel breakers: settings from the options, metrics exported, shared through Redis when there is one. */
export function startBreakers(
  options: OptionsService,
  redis: Redis | undefined,
  bus: ClusterBus,
  prefix: string,
  log: Logger,
): { breakers: ChannelBreakers; stop(): void } {
  const settings = new BreakerSettingsCache(options);
  const breakers = new ChannelBreakers(() => settings.get());
  exportBreakerMetrics(breakers);
  const sync = redis ? new BreakerSync(breakers, redis, bus, prefix, log) : undefined;
  sync?.start();
  return { breakers, stop: () => sync?.stop() };
}
