import { Counter } from 'prom-client';
import type { Logger } from 'pino';
import { metrics } from '../lib/metrics.js';

/**
 * What must never happen to a bill, counted: a settlement that could not take the whole charge (a shortfall: the
 * caller got service worth more than the balance paid for) and an upstream that answered past the output cap the
 * relay sent it (its stream was ended at the hold, or its plain answer not delivered). Each is a bug or a
 * misbehaving upstream, never a discount: it also writes an error-level log line.
 */
export const chargeMetrics = {
  shortfalls: new Counter({
    name: 'tollway_charge_shortfall_total',
    help: 'Settlements whose charge the balance could not cover in full (should stay 0)',
    labelNames: ['source'] as const,
    registers: [metrics],
  }),
  shortfallQuota: new Counter({
    name: 'tollway_charge_shortfall_quota_total',
    help: 'Quota billed but not charged because the balance could not cover it (should stay 0)',
    labelNames: ['source'] as const,
    registers: [metrics],
  }),
  capExceeded: new Counter({
    name: 'tollway_relay_output_cap_exceeded_total',
    help: 'Answers that went past the output the hold affords (the upstream ignored the cap): streams ended, plain answers refused',
    labelNames: ['kind'] as const,
    registers: [metrics],
  }),
};

/** A settlement charged less than its bill: counted and logged at error level (the log row keeps charge_shortfall). */
export function recordShortfall(
  log: Logger,
  source: string,
  detail: { requestId?: string; userId: number; quota: number; charged: number },
): void {
  const short = detail.quota - detail.charged;
  chargeMetrics.shortfalls.inc({ source });
  chargeMetrics.shortfallQuota.inc({ source }, short);
  log.error({ ...detail, shortfall: short, source }, 'charge shortfall: the balance could not cover the bill');
}
