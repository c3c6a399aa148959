import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { collectProcessMetrics } from '../lib/metrics.js';
import { observing } from './relay-observer.js';
import { startTracing, stopTracing } from './tracing.js';

/**
 * Turns recording on as configured: metrics when something serves them, spans when an OTLP endpoint is set.
 * Returns what stops it again: the spans left are exported and tracing ends, if this call started it (metrics
 * stay: they cost nothing once calls stop).
 */
export function startObservability(config: Config, log: Logger): () => Promise<void> {
  if (config.metricsToken || config.metricsPort) {
    observing.metrics = true;
    collectProcessMetrics();
  }
  const tracing = config.otlpTracesEndpoint !== undefined && !observing.tracer;
  if (tracing) {
    observing.tracer = startTracing(
      {
        endpoint: config.otlpTracesEndpoint!,
        serviceName: config.otelServiceName,
        version: config.version,
        sampler: config.otelTracesSampler,
      },
      log,
    );
    observing.trustCallerTrace = config.otelTrustCallerSampling;
  }
  observing.on = observing.metrics || observing.tracer !== undefined;
  return async () => {
    if (!tracing) return;
    observing.tracer = undefined;
    observing.trustCallerTrace = false;
    observing.on = observing.metrics;
    await stopTracing();
  };
}
