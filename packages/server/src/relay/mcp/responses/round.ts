import type { Identified } from '../../entry/authenticate.js';
import type { RelayRequest } from '../../entry/request.js';
import { RelayError } from '../../pipeline/errors.js';
import { relayCall } from '../../pipeline/handler.js';
import type { RelayContext } from '../../pipeline/services.js';
import type { Body, InboundCall } from '../../pipeline/types.js';
import { RoundResponse } from './round-response.js';

/** A Responses answer as a round returns it (the fields the loop reads; the rest is passed on as it is). */
export interface ResponsesAnswer extends Body {
  output?: Body[];
  usage?: Record<string, unknown> | null;
}

/** The caller went away: nobody receives the answer (nginx's 499). */
const clientGone = () => new RelayError(499, 'the client closed the request', 'invalid_request_error');

/**
 * One model round: a whole relay call (admission, limits, hold, channel choice, retries, settlement and its own
 * log row) with `body`, its answer kept in memory. A refusal or upstream failure is thrown in the caller's shape.
 */
export async function modelRound(
  ctx: RelayContext,
  req: RelayRequest,
  who: Identified,
  base: InboundCall,
  body: Body,
  signal: AbortSignal,
): Promise<ResponsesAnswer> {
  if (signal.aborted) throw clientGone();
  const res = new RoundResponse(req.raw);
  const call: InboundCall = {
    ...base,
    body,
    stream: false,
    raw: undefined,
    bytes: Buffer.byteLength(JSON.stringify(body)),
  };
  const abandon = () => res.abandon();
  signal.addEventListener('abort', abandon);
  try {
    await relayCall(
      ctx,
      req,
      res,
      () => call,
      () => who,
    );
    if (!res.writableEnded) throw new RelayError(502, 'the model round ended without an answer', 'upstream_error');
    const answer = await res.answered;
    if (signal.aborted) throw clientGone();
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw new RelayError(502, 'the model answered something that is not JSON', 'upstream_error', 'upstream_error');
    }
    if (answer.status >= 400) {
      const e = (parsed as { error?: { message?: unknown; type?: unknown; code?: unknown } }).error;
      throw new RelayError(
        answer.status,
        typeof e?.message === 'string' ? e.message : 'the model round failed',
        typeof e?.type === 'string' ? e.type : 'upstream_error',
        typeof e?.code === 'string' ? e.code : null,
      );
    }
    if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as ResponsesAnswer).output))
      throw new RelayError(502, 'the model answered without an output list', 'upstream_error', 'upstream_error');
    return parsed as ResponsesAnswer;
  } finally {
    signal.removeEventListener('abort', abandon);
    res.abandon();
    await res.released;
  }
}

const USAGE_COUNTS = ['input_tokens', 'output_tokens', 'total_tokens'] as const;
const USAGE_DETAILS = [
  ['input_tokens_details', 'cached_tokens'],
  ['output_tokens_details', 'reasoning_tokens'],
] as const;

/** The usage of every round added up (the caller's answer reports what all its model rounds used). */
export function addUsage(
  total: Record<string, unknown> | undefined,
  u: Record<string, unknown> | null | undefined,
): Record<string, unknown> | undefined {
  if (!u) return total;
  if (!total) return structuredClone(u);
  for (const k of USAGE_COUNTS) total[k] = Number(total[k] ?? 0) + Number(u[k] ?? 0);
  // The cost of each round, when the caller asked for it (`"usage": {"include": true}`).
  if (typeof u.cost === 'number') total.cost = Number(total.cost ?? 0) + u.cost;
  for (const [outer, inner] of USAGE_DETAILS) {
    const a = (total[outer] ?? {}) as Record<string, unknown>;
    const b = (u[outer] ?? {}) as Record<string, unknown>;
    total[outer] = { ...a, [inner]: Number(a[inner] ?? 0) + Number(b[inner] ?? 0) };
  }
  return total;
}
