import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { collectProcessMetrics } from '../lib/metrics.js';
import { observing } from './relay-observer.js';
import { startTracing, stopTracing } from './tracing.js';

/** Turns recording on as configured: metrics when something serves them, spans when an OTLP endpoint is set. */
export function startObservability(config: Config, log: Logger): void {
  if (config.metricsToken || config.metricsPort) {
    observing.metrics = true;
    collectProcessMetrics();
  }
  if (config.otlpTracesEndpoint) {
    observing.tracer = startTracing({ endpoint: config.otlpTracesEndpoint, serviceName: config.otelServiceName, version: config.version }, log);
  }
  observing.on = observing.metrics || observing.tracer !== undefined;
}

/** Exports the spans left and stops tracing (metrics stay: they cost nothing once calls stop). */
export async function stopObservability(): Promise<void> {
  if (!observing.tracer) return;
  observing.tracer = undefined;
  observing.on = observing.metrics;
  await stopTracing();
}
