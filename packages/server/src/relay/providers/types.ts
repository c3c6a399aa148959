import type { Dispatcher } from 'undici';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import type { OptionsService } from '../../core/options/service.js';
import type { SseEvent } from '../ir/sse.js';
import type { AppContext } from '../../context.js';

export interface UpstreamCall {
  channel: CachedChannel;
  key: string;
  /** Upstream model after mapping. */
  model: string;
  stream: boolean;
  /** OpenAI endpoint path for OpenAI-format upstreams ('/v1/chat/completions', '/v1/embeddings', …). */
  openaiPath: string;
  options: OptionsService;
  /** The caller asked for Anthropic's beta endpoint (`/v1/messages?beta=true`, as Claude Code does). */
  betaQuery?: boolean;
}

/** A request ready to send: after an adaptor's `prepare` step (body reshaped, signed, credential added). */
export interface PreparedRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

/** Splits an upstream stream that is not SSE (e.g. the AWS event stream) into SSE-shaped events of its format. */
export interface StreamFramer {
  push(chunk: Buffer): SseEvent[];
  /** At the end of the stream: events for what is left (e.g. an error for a cut message). */
  flush(): SseEvent[];
}

/**
 * Where and how to send a call to one kind of upstream: URL and auth headers; the body comes from the format.
 * `F` names the wire format it speaks: one of its descriptor's `formats` (the registry's ProviderFormat collects them).
 */
export interface UpstreamAdaptor<F extends string = string> {
  format: F;
  /** The URL may serve several calls (the OpenAI adaptor keeps one per address): copy it to change it. */
  target(call: UpstreamCall): { url: Readonly<URL>; headers: Record<string, string> };
  /**
   * Optional last step that sees the final body (converted calls only; the OpenAI pass-through never has it):
   * reshape the body, sign it, or add a credential fetched asynchronously. A thrown error with a numeric
   * `status` fails the attempt with that status.
   */
  prepare?(
    call: UpstreamCall,
    req: { url: URL; headers: Record<string, string>; body: Record<string, unknown> },
  ): PreparedRequest | Promise<PreparedRequest>;
  /** Optional: a fresh framer for streamed answers that are not SSE. */
  streamFramer?(): StreamFramer;
  /**
   * Optional: what carries the prepared request instead of the HTTP connection pools (Spark's WebSocket): a
   * dispatcher that answers through undici's handler callbacks as an HTTP upstream would.
   */
  dispatcher?(call: UpstreamCall): Dispatcher;
  /**
   * Optional: told when the upstream refused the call's credential (401), to forget a cached one; or to renew it
   * (an OAuth refresh token): a key answered is the renewed credential, and the attempt is sent once more with it.
   */
  credentialRefused?(call: UpstreamCall, ctx: AppContext): void | Promise<string | undefined>;
}
