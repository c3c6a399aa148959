import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';

export const ATTR_CHANNEL_ID = 'tollway.channel.id';
export const ATTR_ATTEMPT = 'tollway.attempt';
export const ATTR_QUOTA = 'tollway.quota';
export const ATTR_MODEL = 'gen_ai.request.model';
export const ATTR_REQUEST_ID = 'tollway.request_id';

/** The W3C trace-context header. */
export const TRACEPARENT = 'traceparent';

/**
 * The spans of one relay call: the call and its stages. The operator's sampler decides whether a call is
 * recorded. A caller's traceparent is believed (the call joins the caller's trace, and the caller's sampled flag
 * counts under a parent-based sampler) only when the operator trusts callers (OTEL_TRUST_CALLER_SAMPLING);
 * otherwise the call starts a trace of its own and the caller's span is only a link on it.
 */
export class CallTrace {
  private readonly root: Span;
  private readonly parent: Context;
  private pick: Span | undefined;
  private attempt: Span | undefined;
  private settle: Span | undefined;

  constructor(
    private readonly tracer: Tracer,
    route: string,
    traceparent: string | undefined,
    startTime: number,
    trustCaller = false,
  ) {
    const parsed = traceparent ? parseTraceParent(traceparent) : null;
    const remote = parsed ? { ...parsed, isRemote: true } : undefined;
    const from = remote && trustCaller ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
    const links = remote && !trustCaller ? [{ context: remote }] : undefined;
    this.root = tracer.startSpan(
      `relay ${route}`,
      {
        kind: SpanKind.SERVER,
        startTime,
        links,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: 'POST', [ATTR_HTTP_ROUTE]: route },
      },
      from,
    );
    this.parent = trace.setSpan(ROOT_CONTEXT, this.root);
  }

  private child(name: string, attributes?: Attributes, startTime?: number, kind = SpanKind.INTERNAL): Span {
    return this.tracer.startSpan(name, { kind, attributes, startTime }, this.parent);
  }

  /** The key check, from the call's start until now. */
  authenticated(startTime: number): void {
    this.child('auth', undefined, startTime).end();
  }

  picking(): void {
    this.pick?.end();
    this.pick = this.child('channel pick');
  }

  attempting(channelId: number, attempt: number, model: string): void {
    this.pick?.setAttribute(ATTR_CHANNEL_ID, channelId).end();
    this.pick = undefined;
    this.root.setAttribute(ATTR_MODEL, model);
    this.attempt = this.child(
      'upstream attempt',
      { [ATTR_CHANNEL_ID]: channelId, [ATTR_ATTEMPT]: attempt },
      undefined,
      SpanKind.CLIENT,
    );
  }

  attempted(status: number, failed: boolean): void {
    const span = this.attempt;
    if (!span) return;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    this.attempt = undefined;
  }

  settling(): void {
    this.settle = this.child('settle');
  }

  settled(quota: number): void {
    this.settle?.setAttribute(ATTR_QUOTA, quota).end();
    this.settle = undefined;
  }

  /** The traceparent an upstream request carries: the attempt under way (else the call itself) as its parent. */
  traceparent(): string {
    const c = (this.attempt ?? this.root).spanContext();
    return `00-${c.traceId}-${c.spanId}-${c.traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
  }

  end(status: number, requestId: string | undefined): void {
    this.pick?.end();
    this.attempt?.end();
    this.settle?.end();
    if (requestId) this.root.setAttribute(ATTR_REQUEST_ID, requestId);
    this.root.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (status >= 500) this.root.setStatus({ code: SpanStatusCode.ERROR });
    this.root.end();
  }
}
