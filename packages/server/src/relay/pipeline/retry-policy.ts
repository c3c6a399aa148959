import type { OptionsService } from '../../core/options/service.js';

/** Matches a status against patterns such as "5xx,429,4xx" (x is a wildcard digit). */
export function statusMatches(patterns: string, status: number): boolean {
  const s = String(status);
  return patterns
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean)
    .some((p) => p.length === 3 && [...p].every((ch, i) => ch === 'x' || ch === s[i]));
}

/** How many times a failed call moves to another channel, and which upstream statuses qualify. */
export interface RetryPolicy {
  attempts: number;
  retryable: (status: number) => boolean;
}

export function retryPolicy(o: OptionsService): RetryPolicy {
  if (o.bool('global.auto_retry_enabled')) {
    const patterns = o.get('global.auto_retry_status_codes');
    const attempts = 1 + Math.max(o.num('RetryTimes'), o.num('global.auto_retry_count'));
    // An empty pattern list means every status.
    return { attempts, retryable: (st) => st === 0 || patterns.trim() === '' || statusMatches(patterns, st) };
  }
  return { attempts: 1 + o.num('RetryTimes'), retryable: (st) => st === 0 || st === 429 || st >= 500 };
}
