import type { TokenKinds } from '@tollway/shared';
/**
 * The one internal representation of a model call. Every wire format (OpenAI Chat Completions, OpenAI
 * Responses, Anthropic Messages, Gemini generateContent) converts to and from it with pure functions, so any
 * inbound format reaches any upstream format without pairwise special cases.
 */

export type IRRole = 'user' | 'assistant' | 'tool';

export type IRPart =
  | { type: 'text'; text: string }
  /** An image by URL (http(s) or data:) or inline base64 with its media type. */
  | { type: 'image'; url?: string; data?: string; mediaType?: string }
  | { type: 'audio'; data: string; format: string }
  /** A call the assistant makes; `arguments` is JSON text. */
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'tool_result'; toolCallId: string; name?: string; content: string; isError?: boolean }
  /** Reasoning text ("thinking"); `signature` is Anthropic's opaque verification string. */
  | { type: 'thinking'; text: string; signature?: string; redacted?: boolean };

export interface IRMessage {
  role: IRRole;
  parts: IRPart[];
}

export interface IRTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export type IRToolChoice = 'auto' | 'none' | 'required' | { name: string };

export interface IRRequest {
  model: string;
  /** System instructions, in order. */
  system: string[];
  messages: IRMessage[];
  tools?: IRTool[];
  toolChoice?: IRToolChoice;
  parallelToolCalls?: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  stream: boolean;
  /** Reasoning request: an effort level and/or a token budget. */
  reasoning?: { effort?: 'minimal' | 'low' | 'medium' | 'high'; budgetTokens?: number };
  /** JSON output: a schema, or just "a JSON object". */
  responseFormat?:
    { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };
  user?: string;
  /**
   * OpenAI's processing tier (`auto`, `default`, `flex`, `priority`), carried between Chat Completions and
   * Responses only (Anthropic's tiers are other words); the channel's settings decide whether it goes upstream.
   */
  serviceTier?: string;
  /** OpenAI's `safety_identifier` (Chat Completions and Responses); removed unless the channel allows it. */
  safetyIdentifier?: string;
}

export type IRStopReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

/**
 * Usage with one meaning whatever the provider said: `inputTokens` excludes cache reads and writes
 * (Anthropic's semantics); OpenAI's prompt_tokens = input + cacheRead + cacheWrite.
 */
export interface IRUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** Calls of tools the provider ran on its side (web search …), by new-api's tool price names. */
  toolCalls?: Readonly<Record<string, number>>;
  /** Parts of the counts by kind (1-hour cache writes, image and audio in and out), when the provider says. */
  kinds?: TokenKinds;
}

export interface IRResponse {
  id: string;
  model: string;
  parts: IRPart[];
  stopReason: IRStopReason;
  usage: IRUsage;
}

/** Events of a streamed answer in the internal representation. */
export type IRStreamEvent =
  /** `usage`: what the upstream's first event already reports (the prompt), when it does. */
  | { type: 'start'; id: string; model: string; usage?: IRUsage }
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature?: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_args'; index: number; args: string }
  | { type: 'stop'; reason: IRStopReason }
  | { type: 'usage'; usage: IRUsage }
  | { type: 'error'; message: string }
  | { type: 'end' };

export const emptyUsage = (): IRUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});

/** What an encoder may want to know of the call: the client's body (in this format) and whether it asked for the usage chunk. */
export interface EncoderCall {
  body: Record<string, unknown>;
  includeUsage: boolean;
}

/** Formats callers speak to the gateway. */
export type ClientFormatName = 'openai' | 'anthropic' | 'gemini' | 'responses';

/** The client side of a wire format: reads the caller's request, writes the answer, its stream and errors in this shape. */
export interface ClientFormat<EncodeState = unknown> {
  name: ClientFormatName;
  /** Client request body → IR. */
  requestToIR(body: Record<string, unknown>): IRRequest;
  /** IR → response body for a client speaking this format. */
  responseFromIR(ir: IRResponse, requestedModel: string): Record<string, unknown>;
  /** IR events → SSE text for a client speaking this format. */
  newEncodeState(requestedModel: string): EncodeState;
  /** Readies a new encode state for the call it answers (the OpenAI usage chunk wanted, the prompt's count). */
  prepareEncoder?(state: EncodeState, call: EncoderCall): void;
  encodeEvent(state: EncodeState, e: IRStreamEvent): string;
  /** Error body in this format's shape (`code`: a machine-readable reason where the format has one). */
  errorBody(status: number, message: string, type?: string, code?: string | null): Record<string, unknown>;
}

/** The upstream side of a wire format: writes the request for an upstream and reads its answer, whole or streamed. */
export interface UpstreamFormat<DecodeState = unknown> {
  /** The format's name: the client format names, or a vendor's own (each provider declares its formats). */
  name: string;
  /** IR → request body for an upstream speaking this format. */
  requestFromIR(ir: IRRequest): Record<string, unknown>;
  /** Upstream response body → IR. */
  responseToIR(body: Record<string, unknown>): IRResponse;
  /** Upstream stream: one complete SSE event (`event:`/`data:` lines) → IR events. */
  newDecodeState(): DecodeState;
  decodeEvent(state: DecodeState, event: { event?: string; data: string }): IRStreamEvent[];
  /** The events a stream with no terminator (Gemini) owes when it ends: the stop reason and usage. */
  finish?(state: DecodeState): IRStreamEvent[];
  /** An error an upstream of this format carries in a 200 JSON answer (Tencent, Coze), with the status it means. */
  answerError?(body: Record<string, unknown>): { status: number; message: string } | undefined;
}

/** A format spoken on both sides (OpenAI Chat, Responses, Anthropic Messages, Gemini). */
export interface WireFormat<DecodeState = unknown, EncodeState = unknown>
  extends ClientFormat<EncodeState>, UpstreamFormat<DecodeState> {
  name: ClientFormatName;
}
