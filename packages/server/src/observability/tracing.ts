import { type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';

/** Where spans go and who sends them (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_SERVICE_NAME). */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  endpoint: string;
  serviceName: string;
  version: string;
  /** Milliseconds between batch exports. */
  exportDelayMs?: number;
}

/** Between batch exports by default (the SDK's default too). */
const DEFAULT_EXPORT_DELAY_MS = 5_000;

let provider: BasicTracerProvider | undefined;
let tracer: Tracer | undefined;

/** Starts the OTLP/HTTP exporter and the process's tracer; once per process (a second call keeps the first). */
export function startTracing(config: TracingConfig, log: Logger): Tracer {
  if (tracer) return tracer;
  const exporter = new OTLPTraceExporter({ url: config.endpoint });
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: config.version }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.exportDelayMs ?? DEFAULT_EXPORT_DELAY_MS })],
  });
  tracer = provider.getTracer('tollway', config.version);
  log.info({ endpoint: new URL(config.endpoint).origin }, 'tracing: exporting spans over OTLP/HTTP');
  return tracer;
}

/** Exports every span ended so far. */
export async function flushTraces(): Promise<void> {
  await provider?.forceFlush();
}

/** Exports what is left and stops the exporter. */
export async function stopTracing(): Promise<void> {
  const p = provider;
  provider = undefined;
  tracer = undefined;
  await p?.shutdown();
}
