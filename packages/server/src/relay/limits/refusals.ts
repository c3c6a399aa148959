import { countRateLimitRefusal } from '../../lib/metrics.js';
import type { LimitLevel } from './types.js';

/** A call refused (or a channel passed over) by a per-minute limit, in tollway_rate_limit_refusals_total. */
export function countRefusal(level: LimitLevel, kind: 'requests' | 'tokens'): void {
  countRateLimitRefusal(level, kind === 'requests' ? 'rpm' : 'tpm');
}
