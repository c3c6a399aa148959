import type { ServerResponse } from 'node:http';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import type { ClientFormat } from '../ir/types.js';
import type { OpenAIEndpoint } from '../providers/openai/request.js';
import type { UpstreamAdaptor } from '../providers/types.js';
import type { CancelSignal, RelayContext } from './services.js';
import type { CallUsage } from '../billing/usage.js';

/**
 * The types a relay call passes between its stages (parse → admit → attempt → forward → settle). Only types
 * here: the stages import this file, it imports none of them.
 */

export type { CappedText } from './capped-text.js';

export type Body = Record<string, unknown>;

/** A parsed inbound call: the client's format, its body, and what the relay needs to know up front. */
export interface InboundCall {
  format: ClientFormat;
  /** For OpenAI-format clients: which endpoint (only 'chat' can be converted to other formats). */
  openaiEndpoint?: OpenAIEndpoint;
  body: Body;
  model: string;
  stream: boolean;
  /** OpenAI stream_options.include_usage: the client wants the usage chunk. */
  includeUsage: boolean;
  maxTokens: number;
  /** Raw body size (the reservation's prompt estimate). */
  bytes: number;
  /** The client's JSON bytes `body` was parsed from, sent as they are when nothing in them changes (OpenAI endpoints). */
  raw?: Buffer;
  /** Set for the surfaces that forward and meter themselves (images, audio, rerank, Gemini embeddings). */
  surface?: Surface;
  /** Billable units at a per-call model price (images × size/quality factor, minutes, 1K characters); 1 when absent. */
  units?: number;
  /** OpenAI `"usage": {"include": true}` (OpenRouter's switch): the answer's usage carries its cost. */
  usageCost?: boolean;
}

/** How one upstream attempt ended: failed before anything reached the client (another channel may serve), or relayed. */
export type AttemptResult =
  | { kind: 'failed'; status: number; message: string; body: string }
  | {
      kind: 'relayed';
      status: number;
      usage: CallUsage | undefined;
      countedCompletion: number;
      firstByteMs: number;
      cut: boolean;
      /** The answer's text as the client received it, capped (only when it was asked to be captured). */
      output?: string;
      /** The client was told the bill (its cost receipt): settlement charges that bill (CostReceipt.issued). */
      receipted?: boolean;
    };

export type RelayedAttempt = Extract<AttemptResult, { kind: 'relayed' }>;

/** What a cost receipt tells the caller: the quota charged, its dollar amount and the headers that carry both. */
export interface Receipt {
  quota: number;
  /** The quota in US dollars (OpenRouter's `usage.cost`). */
  usd: number;
  /** X-Tollway-Cost-Quota and X-Tollway-Cost (billing/receipt.ts). */
  headers: Record<string, string>;
}

/**
 * A call attempt's cost receipt (billing/receipt.ts): the sink that writes the answer asks for the bill just before
 * the answer's head (a plain answer) or its usage chunk (a stream), and tells the caller. The bill is computed
 * once, by settlement's own function, and settlement charges it.
 */
export interface CostReceipt {
  /** The client asked for the cost in the answer's usage (OpenAI `"usage": {"include": true}`). */
  readonly inUsage: boolean;
  /** The bill of this answer (`result` as the sink will return it), kept for settlement. */
  issue(result: RelayedAttempt): Receipt;
  /**
   * The bill when it is known before the answer (a per-call price; for a stream's head), else undefined. Settlement
   * computes it again on the answer's usage: the same quota, unless the provider ran tools priced per call.
   */
  upfront(): Receipt | undefined;
  /** The bill of a usage known before the answer (speech: its input characters), for the answer's head. */
  known(usage: CallUsage): Receipt;
}

/** One upstream attempt of a surface call: the channel chosen, its key and adaptor, where the answer goes. */
export interface SurfaceAttempt {
  ctx: RelayContext;
  channel: CachedChannel;
  key: string;
  /** The model name sent upstream: the channel's mapping applied, its prefix in front. */
  model: string;
  adaptor: UpstreamAdaptor;
  res: ServerResponse;
  signal: CancelSignal;
  started: number;
  /** The call's cost receipt: a surface that answers whole (forwardBuffered) gives it in the answer's head. */
  receipt?: CostReceipt;
}

/** An API surface outside the converted chat formats: it forwards one attempt and reports the usage to bill. */
export interface Surface {
  forward(a: SurfaceAttempt): Promise<AttemptResult>;
}

/** The output a call's hold affords (relay/billing/output-hold.ts makes it). */
export interface OutputBudget {
  /** The output cap per choice to send upstream (the balance binds below what the client asked), or undefined. */
  cap: number | undefined;
  /** Output tokens (all choices) the clamped hold pays for: the meter ends the answer past them; Infinity: unmetered. */
  tokens: number;
}

/** One attempt of a call on one channel (attemptChannel's input). */
export interface ChannelAttempt {
  call: InboundCall;
  channel: CachedChannel;
  key: string;
  /** The model name sent upstream: the channel's mapping applied, its prefix in front. */
  upstreamModel: string;
  res: ServerResponse;
  signal: CancelSignal;
  started: number;
  /** Keep the answer's text for the log (LogChatContentEnabled, read once per call). */
  captureAnswer: boolean;
  /** The output the call's hold affords (relay/billing/output-hold.ts): the cap to send upstream, the meter's limit. */
  budget?: OutputBudget;
  /** The cost receipt of a billed call (absent for channel tests). */
  receipt?: CostReceipt;
}
