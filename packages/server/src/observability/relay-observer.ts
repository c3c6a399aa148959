import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Tracer } from '@opentelemetry/api';
import { modelLabel, NO_LABEL, relayMetrics } from './relay-metrics.js';
import { CallTrace, TRACEPARENT } from './relay-trace.js';

/**
 * What is recorded about relay calls: metrics when they are served (METRICS_TOKEN or METRICS_PORT), spans when an
 * OTLP endpoint is set. With neither, `on` is false and the relay makes no observer, span or context at all.
 */
export const observing: { on: boolean; metrics: boolean; tracer: Tracer | undefined; trustCallerTrace: boolean } = {
  on: false,
  metrics: false,
  tracer: undefined,
  /** Callers' traceparent decides the trace and its sampling (OTEL_TRUST_CALLER_SAMPLING); off by default. */
  trustCallerTrace: false,
};

/** How an upstream attempt ended, as far as observing goes. */
export interface ObservedAttempt {
  kind: 'failed' | 'relayed';
  status: number;
  /** Milliseconds from the call's start to the first answer byte (relayed). */
  firstByteMs?: number;
}

const observers = new WeakMap<ServerResponse, CallObserver>();

/** One relay call under observation, from its route's entry until its answer ended. */
export class CallObserver {
  private readonly startedAt = Date.now();
  private model = NO_LABEL;
  private channel = NO_LABEL;
  private attempts = 0;
  private reserved = 0;
  private requestId: string | undefined;
  private authDone = false;
  private readonly trace: CallTrace | undefined;

  constructor(
    private readonly surface: string,
    headers: IncomingHttpHeaders,
    private readonly res: ServerResponse,
  ) {
    const parent = headers[TRACEPARENT];
    this.trace = observing.tracer
      ? new CallTrace(
          observing.tracer,
          surface,
          typeof parent === 'string' ? parent : undefined,
          this.startedAt,
          observing.trustCallerTrace,
        )
      : undefined;
  }

  /** The key was checked (the first report counts: the hot path checks it before the body is read). */
  authenticated(): void {
    if (this.authDone) return;
    this.authDone = true;
    this.trace?.authenticated(this.startedAt);
  }

  reservedQuota(quota: number, requestId: string): void {
    this.reserved = quota;
    this.requestId = requestId;
    if (observing.metrics) relayMetrics.quota('reserved', 'relay', quota);
  }

  picking(): void {
    this.trace?.picking();
  }

  attempting(channelId: number, model: string): void {
    this.attempts++;
    this.channel = String(channelId);
    this.model = modelLabel(model);
    if (observing.metrics && this.attempts > 1) relayMetrics.retry(this.surface);
    this.trace?.attempting(channelId, this.attempts, model);
  }

  attempted(result: ObservedAttempt): void {
    const failed = result.kind === 'failed';
    if (observing.metrics) {
      if (failed) relayMetrics.upstreamError(this.channel, result.status);
      else relayMetrics.firstByte(this.surface, this.channel, (result.firstByteMs ?? 0) / 1000);
    }
    this.trace?.attempted(result.status, failed);
  }

  settling(): void {
    this.trace?.settling();
  }

  /** The call was charged `charged`; what its reservation held beyond that went back. */
  settled(charged: number): void {
    if (observing.metrics) {
      relayMetrics.quota('charged', 'relay', charged);
      relayMetrics.quota('refunded', 'relay', this.reserved - charged);
    }
    this.trace?.settled(charged);
  }

  /** The call was not charged: its whole reservation went back. */
  released(): void {
    if (observing.metrics) relayMetrics.quota('refunded', 'relay', this.reserved);
  }

  /** The upstream request's traceparent (tracing on). */
  traceparent(): string | undefined {
    return this.trace?.traceparent();
  }

  /** The answer ended (or the caller left): the status the caller was sent. */
  end(): void {
    observers.delete(this.res);
    const status = this.res.statusCode;
    if (observing.metrics)
      relayMetrics.answered(this.surface, this.model, this.channel, status, (Date.now() - this.startedAt) / 1000);
    this.trace?.end(status, this.requestId);
  }
}

/** Starts observing a call on `res` (only when `observing.on`); its stages find it with observerOf(res). */
export function observeRelayCall(surface: string, headers: IncomingHttpHeaders, res: ServerResponse): CallObserver {
  const obs = new CallObserver(surface, headers, res);
  observers.set(res, obs);
  return obs;
}

/** The observer of the call answering on `res`; undefined (one boolean read) when nothing is observed. */
export function observerOf(res: ServerResponse): CallObserver | undefined {
  return observing.on ? observers.get(res) : undefined;
}

/** The upstream request's headers with the call's traceparent (a copy; tracing on). */
export function withTraceparent(headers: Record<string, string>, res: ServerResponse): Record<string, string> {
  const tp = observers.get(res)?.traceparent();
  return tp ? Object.assign({}, headers, { [TRACEPARENT]: tp }) : headers;
}

/** A realtime session's response charged (metrics on). */
export function observeRealtimeCharge(amount: number): void {
  if (observing.metrics) relayMetrics.quota('charged', 'realtime', amount);
}

/** A task's charge at submission or its refund on failure (metrics on). */
export function observeTaskQuota(kind: 'charged' | 'refunded', amount: number): void {
  if (observing.metrics) relayMetrics.quota(kind, 'task', amount);
}
