import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { observing, withTraceparent } from '../../observability/relay-observer.js';
import type { CancelSignal } from '../pipeline/services.js';
import type { AttemptResult, CostReceipt, RelayedAttempt } from '../pipeline/types.js';
import { withUsageCost } from '../billing/receipt.js';
import { UpstreamExchange, type AnswerRoute } from './exchange.js';

export { type AnswerHeaders, type AnswerRoute, type AnswerSink, type StreamSink, type WholeSink } from './exchange.js';

/** What goes upstream: where, with which headers, and the body (JSON text or bytes, or a spooled upload read as it is sent). */
export interface UpstreamCall {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | Readable;
}

/**
 * Stages 4–5 — one upstream call and its answer (undici's dispatcher callbacks, see UpstreamExchange). Before the
 * upstream answers nothing is sent to the client, so an error status (its body read, bounded) comes back as a
 * failure another channel may retry. A success answer goes to the route's sink: streamed (backpressure; the
 * upstream is aborted if the client leaves), or read whole and answered at once. Rejects when no answer came
 * (connection failure, cancel).
 */
export function forwardUpstream(
  agent: Dispatcher,
  up: UpstreamCall,
  res: ServerResponse,
  signal: CancelSignal,
  route: AnswerRoute,
): Promise<AttemptResult> {
  // Traced calls tell the upstream their attempt's span (W3C traceparent).
  const headers = observing.tracer ? withTraceparent(up.headers, res) : up.headers;
  return new Promise((resolve, reject) => {
    agent.dispatch(
      { origin: up.origin, path: up.path, method: 'POST', headers, body: up.body },
      new UpstreamExchange(res, route, signal, up.body, resolve, reject),
    );
  });
}

/** A whole JSON answer with its length (no chunked framing; one write), and any headers of its own (a cost receipt). */
export function sendWhole(
  res: ServerResponse,
  text: string,
  contentType = 'application/json',
  headers?: Record<string, string>,
): void {
  const head = { 'content-type': contentType, 'content-length': Buffer.byteLength(text) };
  res.writeHead(200, headers ? Object.assign(head, headers) : head);
  res.end(text);
}

/**
 * Delivers a whole answer (converted, or collected from a stream) with the call's cost receipt: its headers, and
 * the cost in the usage when the client asked and speaks OpenAI's format (`openaiClient`).
 */
export function sendBilled(
  res: ServerResponse,
  text: string,
  result: RelayedAttempt,
  receipt: CostReceipt | undefined,
  openaiClient: boolean,
  contentType?: string,
): void {
  if (!receipt) return sendWhole(res, text, contentType);
  const r = receipt.issue(result);
  result.receipted = true;
  sendWhole(res, receipt.inUsage && openaiClient ? withUsageCost(text, r) : text, contentType, r.headers);
}
