/**
 * Anthropic Messages' wire shapes as Tollway reads and writes them (request, answer, stream events, usage),
 * written from the API reference and the `@anthropic-ai/sdk` types. They state the documented shape; the
 * converters still read every field defensively. Fields the relay never reads are left out: a request body
 * passed on keeps them as sent.
 */

export type AnthropicUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** The cache writes by lifetime (their sum is cache_creation_input_tokens). */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  /** Server tools Anthropic ran for the answer (web search, web fetch). */
  server_tool_use?: { web_search_requests?: number | null; web_fetch_requests?: number | null } | null;
};

export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export type AnthropicTextBlock = { type: 'text'; text: string };

export type AnthropicToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | AnthropicTextBlock[];
  is_error?: boolean;
};

export type AnthropicBlock =
  | AnthropicTextBlock
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | AnthropicToolResultBlock
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

export type AnthropicMessage = { role: 'user' | 'assistant'; content: string | AnthropicBlock[] };

export type AnthropicTool = {
  /** Absent or `custom` for a function tool; built-in tools (web search, bash, …) name their own type. */
  type?: string;
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
};

export type AnthropicToolChoice = {
  type: 'auto' | 'any' | 'none' | 'tool';
  name?: string;
  disable_parallel_tool_use?: boolean;
};

export type AnthropicThinking = { type: 'enabled'; budget_tokens: number } | { type: 'disabled' | 'adaptive' };

export type AnthropicOutputFormat = { type: 'json_schema'; schema: Record<string, unknown>; name?: string };

export type AnthropicRequest = {
  model?: string;
  max_tokens?: number;
  system?: string | AnthropicTextBlock[];
  messages?: AnthropicMessage[];
  stream?: boolean;
  thinking?: AnthropicThinking;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  /** Native structured output. */
  output_config?: { format?: AnthropicOutputFormat } & Record<string, unknown>;
  /** The structured-output beta's spelling. */
  output_format?: AnthropicOutputFormat;
  metadata?: { user_id?: string };
};

export type AnthropicStopReason =
  'end_turn' | 'stop_sequence' | 'pause_turn' | 'max_tokens' | 'model_context_window_exceeded' | 'tool_use' | 'refusal';

export type AnthropicResponse = {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicBlock[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
};

export type AnthropicDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'input_json_delta'; partial_json: string };

export type AnthropicStreamEvent =
  | { type: 'message_start'; message: AnthropicResponse }
  | { type: 'content_block_start'; index: number; content_block: AnthropicBlock }
  | { type: 'content_block_delta'; index: number; delta: AnthropicDelta }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: AnthropicStopReason | null; stop_sequence: string | null };
      /** Cumulative counts; the input and cache counts may be absent. */
      usage: Partial<AnthropicUsage>;
    }
  | { type: 'message_stop' }
  | { type: 'ping' }
  | { type: 'error'; error: { type: string; message: string } };
