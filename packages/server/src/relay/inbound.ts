import type { ServerResponse } from 'node:http';
import type { RelayRequest } from './request.js';
import type { CachedChannel } from '../modules/channels/cache.js';
import { relayErrors } from './errors.js';
import type { AttemptResult } from './forward.js';
import { geminiGenerate, geminiModelFromPath } from './ir/gemini.js';
import { openAIChat } from './ir/openai-chat.js';
import type { WireFormat } from './ir/types.js';
import type { OpenAIEndpoint } from './providers/openai/request.js';
import type { UpstreamAdaptor } from './providers/types.js';
import type { CancelSignal, RelayContext } from './services.js';

export type Body = Record<string, unknown>;

/** A parsed inbound call: the client's format, its body, and what the relay needs to know up front. */
export interface InboundCall {
  format: WireFormat;
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
  /** Set for the surfaces that forward and meter themselves (images, audio, rerank, Gemini embeddings). */
  surface?: Surface;
  /** Billable units at a per-call model price (images × size/quality factor, minutes, 1K characters); 1 when absent. */
  units?: number;
}

/** One upstream attempt of a surface call: the channel chosen, its key and adaptor, where the answer goes. */
export interface SurfaceAttempt {
  ctx: RelayContext;
  channel: CachedChannel;
  key: string;
  /** Upstream model after the channel's mapping. */
  model: string;
  adaptor: UpstreamAdaptor;
  res: ServerResponse;
  signal: CancelSignal;
  started: number;
}

/** An API surface outside the converted chat formats: it forwards one attempt and reports the usage to bill. */
export interface Surface {
  forward(a: SurfaceAttempt): Promise<AttemptResult>;
}

export function parseJsonBody(raw: unknown): Body {
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw relayErrors.badBody('a JSON object is required');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw relayErrors.badBody(`malformed JSON (${(err as Error).message})`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw relayErrors.badBody('a JSON object is required');
  return body as Body;
}

const modelOf = (body: Body): string => {
  const model = typeof body.model === 'string' ? body.model.trim() : '';
  if (!model) throw relayErrors.noModel();
  return model;
};

/** OpenAI Chat Completions and the other OpenAI endpoints. */
export function openAIInbound(endpoint: OpenAIEndpoint) {
  return (req: RelayRequest): InboundCall => {
    const body = parseJsonBody(req.body);
    return {
      format: openAIChat,
      openaiEndpoint: endpoint,
      body,
      model: modelOf(body),
      stream: body.stream === true,
      includeUsage: (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true,
      maxTokens: Number(body.max_completion_tokens ?? body.max_tokens ?? 0) || 0,
      bytes: (req.body as Buffer).length,
    };
  };
}

/** Clients whose model and stream flag are in the body (Anthropic Messages, OpenAI Responses). */
export function bodyModelInbound(format: WireFormat, maxTokensField: string) {
  return (req: RelayRequest): InboundCall => {
    const body = parseJsonBody(req.body);
    return { format, body, model: modelOf(body), stream: body.stream === true, includeUsage: false, maxTokens: Number(body[maxTokensField] ?? 0) || 0, bytes: (req.body as Buffer).length };
  };
}

/** Gemini: the model and the method (generateContent / streamGenerateContent) are in the URL. */
export function geminiInbound(req: RelayRequest): InboundCall {
  const parsed = geminiModelFromPath(req.url);
  if (!parsed) throw relayErrors.badBody('the path must be /v1beta/models/{model}:generateContent or :streamGenerateContent');
  if (parsed.method !== 'generateContent' && parsed.method !== 'streamGenerateContent') {
    throw relayErrors.badBody(`method ${parsed.method} is not supported here`);
  }
  const body = parseJsonBody(req.body);
  const maxTokens = Number((body.generationConfig as { maxOutputTokens?: number } | undefined)?.maxOutputTokens ?? 0) || 0;
  return { format: geminiGenerate as unknown as WireFormat, body, model: parsed.model, stream: parsed.method === 'streamGenerateContent', includeUsage: false, maxTokens, bytes: (req.body as Buffer).length };
}
