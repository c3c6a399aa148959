import type { ReasoningEffort } from './reasoning.js';

/**
 * OpenAI's wire shapes as Tollway reads and writes them: Chat Completions (request, answer, stream chunk) and
 * Responses (request, Response object, stream events), written from the API reference and the `openai` SDK's
 * types. They state the documented shape; the converters still read every field defensively, since callers and
 * compatible vendors send what they like. Fields the relay never reads are left out (a body keeps them as sent).
 * Fields marked "vendor" are not OpenAI's but compatible vendors' (DeepSeek's reasoning_content, …).
 */

/* ---------------------------------------------------------------- usage (both APIs) */

export interface OpenAIInputTokenDetails {
  cached_tokens?: number;
  /** Responses names its cache writes; compatible vendors say cache_creation_tokens. */
  cache_write_tokens?: number;
  cache_creation_tokens?: number;
  audio_tokens?: number;
  image_tokens?: number;
}

export interface OpenAIOutputTokenDetails {
  reasoning_tokens?: number;
  audio_tokens?: number;
  image_tokens?: number;
}

export type ChatUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: OpenAIInputTokenDetails;
  completion_tokens_details?: OpenAIOutputTokenDetails;
};

export type ResponsesUsage = {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details?: OpenAIInputTokenDetails;
  output_tokens_details?: OpenAIOutputTokenDetails;
};

/* ---------------------------------------------------------------- Chat Completions */

export type ChatContentPart =
  | { type: 'text'; text: string }
  /** Some clients send the URL as a bare string. */
  | { type: 'image_url'; image_url: { url: string; detail?: string } | string }
  | { type: 'input_audio'; input_audio: { data: string; format: string } };

export type ChatContent = string | ChatContentPart[];

export type ChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

export type ChatMessage =
  | { role: 'system' | 'developer'; content: ChatContent }
  | { role: 'user'; content: ChatContent }
  | {
      role: 'assistant';
      content?: ChatContent | null;
      /** vendor */
      reasoning_content?: string;
      tool_calls?: ChatToolCall[];
    }
  | { role: 'tool'; content: ChatContent; tool_call_id: string };

export type ChatTool = {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
};

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean } };

export type ChatRequest = {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  /**
   * Typed as the IR's four efforts, which is how requestToIR passes it on. OpenAI also takes 'none', 'xhigh' and
   * 'max': those reach the IR unchecked (see the note in the typed-wire docs).
   */
  reasoning_effort?: ReasoningEffort;
  response_format?: ChatResponseFormat;
  user?: string;
  safety_identifier?: string;
  service_tier?: string;
};

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export type ChatAnswerMessage = {
  role: 'assistant';
  content: string | null;
  /** vendor */
  reasoning_content?: string;
  tool_calls?: ChatToolCall[];
};

export type ChatCompletion = {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: ChatAnswerMessage; finish_reason: ChatFinishReason }[];
  usage?: ChatUsage;
};

/** A streamed tool-call piece: the first carries id and name, the rest argument text. */
export type ChatToolCallDelta = {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
};

export type ChatDelta = {
  role?: 'assistant';
  content?: string | null;
  /** vendor */
  reasoning_content?: string;
  tool_calls?: ChatToolCallDelta[];
};

export type ChatCompletionChunk = {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: ChatDelta; finish_reason: ChatFinishReason | null }[];
  usage?: ChatUsage | null;
  /** An error some compatible upstreams send mid-stream. */
  error?: { message?: string };
};

/* ---------------------------------------------------------------- Responses */

export type ResponsesContentPart =
  | { type: 'input_text'; text: string }
  | { type: 'output_text'; text: string; annotations?: unknown[]; logprobs?: unknown[] }
  /** Some clients write Chat's part name. */
  | { type: 'text'; text: string }
  | { type: 'refusal'; refusal: string }
  | { type: 'input_image'; detail?: string; image_url?: string; file_id?: string }
  | { type: 'input_audio'; input_audio: { data: string; format: string } };

export type ResponsesOutputText = { type: 'output_text'; annotations: unknown[]; logprobs: unknown[]; text: string };

export type ResponsesSummaryText = { type: 'summary_text'; text: string };

/** An input message (`type` may be left out) or an output message item. */
export type ResponsesMessageItem = {
  type?: 'message';
  id?: string;
  status?: string;
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | ResponsesContentPart[];
};

export type ResponsesFunctionCallItem = {
  type: 'function_call';
  id?: string;
  status?: string;
  call_id: string;
  name: string;
  arguments: string;
};

export type ResponsesFunctionCallOutputItem = {
  type: 'function_call_output';
  call_id: string;
  /** A string, or (newer API) a list of input content parts. */
  output: string | ResponsesContentPart[];
};

export type ResponsesReasoningItem = {
  type: 'reasoning';
  id?: string;
  summary: ResponsesSummaryText[];
  content?: { type: 'reasoning_text'; text: string }[];
};

export type ResponsesInputItem =
  ResponsesMessageItem | ResponsesFunctionCallItem | ResponsesFunctionCallOutputItem | ResponsesReasoningItem;

/** The output items Tollway writes (each with its id and status). */
export type ResponsesOutputMessage = {
  id: string;
  type: 'message';
  status: string;
  role: 'assistant';
  content: ResponsesOutputText[];
};
export type ResponsesOutputReasoning = { id: string; type: 'reasoning'; summary: ResponsesSummaryText[] };
export type ResponsesOutputFunctionCall = {
  id: string;
  type: 'function_call';
  status: string;
  arguments: string;
  call_id: string;
  name: string;
};
export type ResponsesOutputItem = ResponsesOutputMessage | ResponsesOutputReasoning | ResponsesOutputFunctionCall;

export type ResponsesTool = {
  type: 'function';
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
};

export type ResponsesToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; name: string };

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema?: Record<string, unknown>; strict?: boolean | null };

export type ResponsesRequest = {
  model: string;
  instructions?: string;
  input?: string | ResponsesInputItem[];
  stream?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  tools?: ResponsesTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean;
  reasoning?: { effort?: ReasoningEffort };
  text?: { format?: ResponsesTextFormat };
  user?: string;
  safety_identifier?: string;
  store?: boolean;
  service_tier?: string;
};

export type ResponsesStatus = 'completed' | 'incomplete' | 'failed' | 'in_progress';

/** A Response object as the relay reads it from an upstream (whole, or inside stream events). */
export type ResponsesResponse = {
  id?: string;
  model?: string;
  status?: ResponsesStatus;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
  output?: (ResponsesInputItem | ResponsesOutputItem)[];
  usage?: ResponsesUsage;
};

/** A whole Response object as Tollway writes it for a client: the request echoes take the API's defaults. */
export type ResponsesResponseObject = {
  id: string;
  object: 'response';
  access_programs: null;
  created_at: number;
  status: ResponsesStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'content_filter' | 'max_output_tokens' } | null;
  instructions: null;
  max_output_tokens: null;
  model: string;
  output: ResponsesOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: { effort: null; summary: null };
  temperature: number;
  text: { format: { type: 'text' } };
  tool_choice: 'auto';
  tools: [];
  top_p: number;
  truncation: 'disabled';
  usage?: ResponsesUsage;
  metadata: Record<string, string>;
};

/**
 * A Responses stream event: `type` says which of these fields it carries (output_index and item on
 * response.output_item.*, delta on *.delta, response on response.created/completed/…, message on error).
 */
export type ResponsesStreamEvent = {
  type?: string;
  sequence_number?: number;
  response?: ResponsesResponse;
  item?: ResponsesInputItem | ResponsesOutputItem;
  item_id?: string;
  output_index?: number;
  content_index?: number;
  summary_index?: number;
  delta?: string;
  text?: string;
  arguments?: string;
  part?: ResponsesOutputText | ResponsesSummaryText;
  logprobs?: unknown[];
  code?: string | null;
  message?: string;
  param?: string | null;
  error?: { message?: string };
};
