import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { forwardOpenAI } from '../upstream/forward.js';
import {
  forwardUpstream,
  sendBilled,
  type AnswerHeaders,
  type AnswerRoute,
  type WholeSink,
} from '../upstream/forward-upstream.js';
import { countTextTokens } from '../pipeline/token-count.js';
import { withHeaderOverride } from '../upstream/header-override.js';
import type { CallUsage } from '../billing/usage.js';
import type { AttemptResult, CostReceipt, RelayedAttempt, SurfaceAttempt } from '../pipeline/types.js';

const MAX_ANSWER = 64 * 1024 * 1024;
/** Most of an answer `meter` could not read kept for the log. */
const BAD_ANSWER_LIMIT = 2000;

/** Where one upstream call of a surface goes: origin, path and headers. */
export interface SurfaceTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

/** The failure of a channel that cannot serve a surface (another channel may). */
export const cannotServe = (a: SurfaceAttempt, what: string): AttemptResult => ({
  kind: 'failed',
  status: 501,
  message: `channel #${a.channel.id} (type ${a.channel.type}) does not serve ${what}`,
  body: '',
});

/** The OpenAI path of a surface on an OpenAI-format channel (OpenAI-compatible vendors, Azure deployments). */
export function openAITarget(
  a: SurfaceAttempt,
  openaiPath: string,
  contentType = 'application/json',
): SurfaceTarget | undefined {
  if (a.adaptor.format !== 'openai') return undefined;
  const t = a.adaptor.target({
    channel: a.channel,
    key: a.key,
    model: a.model,
    stream: false,
    openaiPath,
    options: a.ctx.options,
  });
  return {
    origin: t.url.origin,
    path: t.url.pathname + t.url.search,
    headers: Object.assign({}, t.headers, { 'content-type': contentType }),
  };
}

/**
 * Every surface call goes out through `forwardPassThrough` or `forwardBuffered`: both apply the channel's
 * header_override last.
 *
 * Passes the upstream answer through as it arrives (images, speech audio, streamed image events) with the
 * generic forwarder; `meter` turns the usage read on the way (if any) into what is billed.
 */
export async function forwardPassThrough(
  a: SurfaceAttempt,
  t: SurfaceTarget,
  body: string | Readable,
  stream: boolean,
  meter: (reported: CallUsage | undefined) => CallUsage,
  /** A plain JSON answer (images) is held whole to carry the call's cost receipt; others (audio) pass as they come. */
  receipted = false,
  /** A usage known before the answer (speech): its receipt goes in the head of an answer passed on as it comes. */
  knownUsage?: CallUsage,
): Promise<AttemptResult> {
  const plainReceipt = receipted && !stream ? a.receipt : undefined;
  const known = knownUsage && a.receipt ? a.receipt.known(knownUsage).headers : undefined;
  const result = await forwardOpenAI(
    a.ctx.relay.upstream.for(a.channel),
    {
      origin: t.origin,
      path: t.path,
      headers: withHeaderOverride(t.headers, a.channel, a.key, a.res.req?.headers),
      body,
      stream,
      clientWantsUsage: true,
      pingMs: stream ? a.ctx.relay.settings.get().pingMs : 0,
      receipt: plainReceipt,
      meter: plainReceipt && meter,
      ...(known ? { receiptHeaders: known } : {}),
    },
    a.res,
    a.signal,
    countTextTokens,
    a.started,
  );
  // A receipted answer was metered before its receipt was given: that usage is the bill.
  if (result.kind !== 'relayed' || result.receipted) return result;
  // The surface's meter is what it bills: the pass-through's own count (of audio bytes, say) is no count of it.
  return { ...result, usage: meter(result.usage), countedCompletion: 0, cut: false };
}

/** A whole upstream answer, read for metering or conversion. */
export interface Answer {
  contentType: string;
  text: string;
}

/** What goes back to the client and what is billed. */
export interface Metered {
  out: string;
  contentType: string;
  usage: CallUsage;
}

/** A whole answer (bounded) that `meter` converts and bills; then the client gets it at once. */
class MeteredAnswer implements WholeSink, AnswerRoute {
  readonly whole = true;
  readonly limit = MAX_ANSWER;
  constructor(
    private readonly meter: (answer: Answer) => Metered | { error: string },
    private readonly started: number,
    private readonly receipt: CostReceipt | undefined,
  ) {}

  sinkFor(): WholeSink {
    return this;
  }

  answer(res: ServerResponse, text: string, headers: AnswerHeaders): AttemptResult {
    const metered = this.meter({ contentType: String(headers['content-type'] ?? ''), text });
    if ('error' in metered)
      return { kind: 'failed', status: 502, message: metered.error, body: text.slice(0, BAD_ANSWER_LIMIT) };
    const firstByteMs = Date.now() - this.started;
    const result: RelayedAttempt = {
      kind: 'relayed',
      status: 200,
      usage: metered.usage,
      countedCompletion: 0,
      firstByteMs,
      cut: false,
    };
    // The receipt in the head only: a surface's answer shape has no usage.cost of its own.
    sendBilled(res, metered.out, result, this.receipt, false, metered.contentType);
    return result;
  }
}

/**
 * Sends one call and reads the whole answer (small JSON or text: transcripts, rerank results, embeddings),
 * which `meter` may convert; then answers the client. Error statuses come back as failures (retryable).
 */
export function forwardBuffered(
  a: SurfaceAttempt,
  t: SurfaceTarget,
  body: string | Readable,
  meter: (answer: Answer) => Metered | { error: string },
): Promise<AttemptResult> {
  return forwardUpstream(
    a.ctx.relay.upstream.for(a.channel),
    {
      origin: t.origin,
      path: t.path,
      headers: withHeaderOverride(t.headers, a.channel, a.key, a.res.req?.headers),
      body,
    },
    a.res,
    a.signal,
    new MeteredAnswer(meter, a.started, a.receipt),
  );
}

/** Usage counted by us from text we sent (prompt) and text we got (completion). */
export const countedUsage = (prompt: string, completion = '', units?: number): CallUsage => ({
  promptTokens: countTextTokens(prompt),
  completionTokens: countTextTokens(completion),
  reported: false,
  ...(units !== undefined ? { units } : {}),
});

/** Inputs counted as OpenAI bills embeddings: each text on its own (no separator), summed. */
export const countedInputsUsage = (texts: readonly string[]): CallUsage => ({
  promptTokens: texts.reduce((n, t) => n + countTextTokens(t), 0),
  completionTokens: 0,
  reported: false,
});
