import { Counter } from 'prom-client';
import { metrics } from '../../lib/metrics.js';
import type { LimitLevel } from './types.js';

const NAME = 'tollway_rate_limit_refusals_total';

/** Calls refused (or channels skipped) by an RPM/TPM limit, by level and by what ran out. */
const refusals =
  (metrics.getSingleMetric(NAME) as Counter<'level' | 'kind'> | undefined) ??
  new Counter({ name: NAME, help: 'Relay calls refused, or channels skipped, by a requests or tokens per minute limit', labelNames: ['level', 'kind'], registers: [metrics] });

export function countRefusal(level: LimitLevel, kind: 'requests' | 'tokens'): void {
  refusals.inc({ level, kind });
}
