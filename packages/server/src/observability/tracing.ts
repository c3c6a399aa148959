import { createRequire } from 'node:module';
import { type Tracer } from '@opentelemetry/api';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { TracesSampler } from '../config.js';

/** The tracing SDK and its exporter load only when tracing starts (a few MB of RSS otherwise unused). */
const load = createRequire(import.meta.url);

/** Where spans go and who sends them (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_SERVICE_NAME), and what is kept. */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  endpoint: string;
  serviceName: string;
  version: string;
  sampler: TracesSampler;
  /** Milliseconds between batch exports. */
  exportDelayMs?: number;
}

/** Between batch exports by default (the SDK's default too). */
const DEFAULT_EXPORT_DELAY_MS = 5_000;

function samplerOf(s: TracesSampler, base: typeof TraceBase): TraceBase.Sampler {
  const { AlwaysOnSampler, AlwaysOffSampler, TraceIdRatioBasedSampler, ParentBasedSampler } = base;
  const root = s.name.endsWith('always_on')
    ? new AlwaysOnSampler()
    : s.name.endsWith('always_off')
      ? new AlwaysOffSampler()
      : new TraceIdRatioBasedSampler(s.ratio);
  return s.name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

let provider: TraceBase.BasicTracerProvider | undefined;
let tracer: Tracer | undefined;

/** Starts the OTLP/HTTP exporter and the process's tracer; once per process (a second call keeps the first). */
export function startTracing(config: TracingConfig, log: Logger): Tracer {
  if (tracer) return tracer;
  const { OTLPTraceExporter } = load('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { resourceFromAttributes } = load('@opentelemetry/resources') as typeof Resources;
  const base = load('@opentelemetry/sdk-trace-base') as typeof TraceBase;
  const { BasicTracerProvider, BatchSpanProcessor } = base;
  const exporter = new OTLPTraceExporter({ url: config.endpoint });
  provider = new BasicTracerProvider({
    sampler: samplerOf(config.sampler, base),
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: config.serviceName,
      [ATTR_SERVICE_VERSION]: config.version,
    }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.exportDelayMs ?? DEFAULT_EXPORT_DELAY_MS }),
    ],
  });
  tracer = provider.getTracer('tollway', config.version);
  log.info(
    { endpoint: new URL(config.endpoint).origin, sampler: config.sampler.name, ratio: config.sampler.ratio },
    'tracing: exporting spans over OTLP/HTTP',
  );
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
