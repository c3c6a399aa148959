import { Registry } from 'prom-client';

/** The process's Prometheus metrics; modules define theirs on it and GET /metrics serves it. */
export const metrics = new Registry();

/** Prometheus text of every metric. */
export function metricsText(): Promise<string> {
  return metrics.metrics();
}

export const METRICS_CONTENT_TYPE = metrics.contentType;
