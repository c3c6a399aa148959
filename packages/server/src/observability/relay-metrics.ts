import { Counter, Histogram } from 'prom-client';
import { BoundedLabel, metrics } from '../lib/metrics.js';

/** Seconds: a whole relay call, streamed answers included. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds until the answer's first byte reached the caller. */
const TTFB_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Distinct model names labelled before the rest read `other`. */
const MODEL_LABEL_CAP = 200;
/** Label of a call that never reached a channel (refused before, or none was left). */
export const NO_LABEL = 'none';

const requests = new Counter({
  name: 'tollway_relay_requests_total',
  help: 'Relay calls answered, by surface (route), model, the channel that answered last and the status class sent',
  labelNames: ['surface', 'model', 'channel', 'status_class'] as const,
  registers: [metrics],
});
const duration = new Histogram({
  name: 'tollway_relay_request_duration_seconds',
  help: 'Relay call latency until the answer ended, by surface and status class',
  labelNames: ['surface', 'status_class'] as const,
  buckets: DURATION_BUCKETS,
  registers: [metrics],
});
const ttfb = new Histogram({
  name: 'tollway_relay_ttfb_seconds',
  help: 'Time from the call to the first answer byte, by surface and channel (relayed calls)',
  labelNames: ['surface', 'channel'] as const,
  buckets: TTFB_BUCKETS,
  registers: [metrics],
});
const upstreamErrors = new Counter({
  name: 'tollway_upstream_errors_total',
  help: 'Failed upstream attempts by channel and kind (network, timeout, rate_limit, auth, client, server)',
  labelNames: ['channel', 'kind'] as const,
  registers: [metrics],
});
const retries = new Counter({
  name: 'tollway_relay_retries_total',
  help: 'Upstream attempts after the first of a call (another channel or key tried)',
  labelNames: ['surface'] as const,
  registers: [metrics],
});
const quotaReserved = new Counter({
  name: 'tollway_quota_reserved_total',
  help: 'Quota reserved at admission',
  labelNames: ['source'] as const,
  registers: [metrics],
});
const quotaCharged = new Counter({
  name: 'tollway_quota_charged_total',
  help: 'Quota charged (relay settlements, task submissions)',
  labelNames: ['source'] as const,
  registers: [metrics],
});
const quotaRefunded = new Counter({
  name: 'tollway_quota_refunded_total',
  help: 'Quota given back: reservations a relay call did not use (all of it when it failed), failed tasks refunded',
  labelNames: ['source'] as const,
  registers: [metrics],
});

export type QuotaSource = 'relay' | 'task';

const models = new BoundedLabel(MODEL_LABEL_CAP);
/** A bounded model label (the name of a model a channel serves). */
export const modelLabel = (model: string): string => models.of(model);

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
export const statusClass = (status: number): string => STATUS_CLASSES[Math.floor(status / 100)] ?? 'other';

/** What kind of upstream failure an attempt's status is (0: no answer at all). */
export function upstreamErrorKind(status: number): string {
  if (status === 0) return 'network';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  return status < 500 ? 'client' : 'server';
}

/** Label children resolved once per distinct label set (prom-client hashes labels on every `labels()` call). */
function children<T>(make: (values: string[]) => T): (values: string[]) => T {
  const cache = new Map<string, T>();
  return (values) => {
    const key = values.join('\u0001');
    let child = cache.get(key);
    if (!child) cache.set(key, (child = make(values)));
    return child;
  };
}

const requestChild = children((v) => requests.labels(...(v as [string, string, string, string])));
const durationChild = children((v) => duration.labels(...(v as [string, string])));
const ttfbChild = children((v) => ttfb.labels(...(v as [string, string])));
const errorChild = children((v) => upstreamErrors.labels(...(v as [string, string])));
const retryChild = children((v) => retries.labels(v[0]!));
const quota = {
  reserved: { relay: quotaReserved.labels('relay'), task: quotaReserved.labels('task') },
  charged: { relay: quotaCharged.labels('relay'), task: quotaCharged.labels('task') },
  refunded: { relay: quotaRefunded.labels('relay'), task: quotaRefunded.labels('task') },
};

/** The relay's recording calls; each is a few map lookups and additions. */
export const relayMetrics = {
  answered(surface: string, model: string, channel: string, status: number, seconds: number): void {
    const cls = statusClass(status);
    requestChild([surface, model, channel, cls]).inc();
    durationChild([surface, cls]).observe(seconds);
  },
  firstByte(surface: string, channel: string, seconds: number): void {
    ttfbChild([surface, channel]).observe(seconds);
  },
  upstreamError(channel: string, status: number): void {
    errorChild([channel, upstreamErrorKind(status)]).inc();
  },
  retry(surface: string): void {
    retryChild([surface]).inc();
  },
  quota(kind: keyof typeof quota, source: QuotaSource, amount: number): void {
    if (amount > 0) quota[kind][source].inc(amount);
  },
};
