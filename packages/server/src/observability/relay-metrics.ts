import { BoundedLabel, metrics } from '../lib/metrics.js';
import { FastCounter, FastHistogram } from './fast-metrics.js';

/** Seconds: a whole relay call, streamed answers included. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds until the answer's first byte reached the caller. */
const TTFB_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Distinct model names labelled before the rest read `other`. */
const MODEL_LABEL_CAP = 200;
/** Label of a call that never reached a channel (refused before, or none was left). */
export const NO_LABEL = 'none';

const requests = new FastCounter(
  'tollway_relay_requests_total',
  'Relay calls answered, by surface (route), model, the channel that answered last and the status class sent',
  ['surface', 'model', 'channel', 'status_class'],
  metrics,
);
const duration = new FastHistogram(
  'tollway_relay_request_duration_seconds',
  'Relay call latency until the answer ended, by surface and status class',
  ['surface', 'status_class'],
  metrics,
  DURATION_BUCKETS,
);
const ttfb = new FastHistogram(
  'tollway_relay_ttfb_seconds',
  'Time from the call to the first answer byte, by surface and channel (relayed calls)',
  ['surface', 'channel'],
  metrics,
  TTFB_BUCKETS,
);
const upstreamErrors = new FastCounter(
  'tollway_upstream_errors_total',
  'Failed upstream attempts by channel and kind (network, timeout, rate_limit, auth, client, server)',
  ['channel', 'kind'],
  metrics,
);
const retries = new FastCounter(
  'tollway_relay_retries_total',
  'Upstream attempts after the first of a call (another channel or key tried)',
  ['surface'],
  metrics,
);
const quotaReserved = new FastCounter(
  'tollway_quota_reserved_total',
  'Quota reserved at admission',
  ['source'],
  metrics,
);
const quotaCharged = new FastCounter(
  'tollway_quota_charged_total',
  'Quota charged (relay settlements, task submissions, realtime responses)',
  ['source'],
  metrics,
);
const quotaRefunded = new FastCounter(
  'tollway_quota_refunded_total',
  'Quota given back: reservations a relay call did not use (all of it when it failed), failed tasks refunded',
  ['source'],
  metrics,
);

export type QuotaSource = 'relay' | 'task' | 'realtime';

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

const quota = {
  reserved: {
    relay: quotaReserved.child('relay'),
    task: quotaReserved.child('task'),
    realtime: quotaReserved.child('realtime'),
  },
  charged: {
    relay: quotaCharged.child('relay'),
    task: quotaCharged.child('task'),
    realtime: quotaCharged.child('realtime'),
  },
  refunded: {
    relay: quotaRefunded.child('relay'),
    task: quotaRefunded.child('task'),
    realtime: quotaRefunded.child('realtime'),
  },
};

/** The relay's recording calls; each is a few map lookups and additions. */
export const relayMetrics = {
  answered(surface: string, model: string, channel: string, status: number, seconds: number): void {
    const cls = statusClass(status);
    requests.inc([surface, model, channel, cls]);
    duration.observe([surface, cls], seconds);
  },
  firstByte(surface: string, channel: string, seconds: number): void {
    ttfb.observe([surface, channel], seconds);
  },
  upstreamError(channel: string, status: number): void {
    upstreamErrors.inc([channel, upstreamErrorKind(status)]);
  },
  retry(surface: string): void {
    retries.inc([surface]);
  },
  quota(kind: keyof typeof quota, source: QuotaSource, amount: number): void {
    if (amount > 0) quota[kind][source].value += amount;
  },
};
