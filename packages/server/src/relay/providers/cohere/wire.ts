/** Cohere Chat v2's wire shapes (`POST /v2/chat`) as Tollway writes the request and reads the answer and its stream. */

export type CohereTokenCounts = { input_tokens?: number; output_tokens?: number };

/** Cohere bills `billed_units`; `tokens` is the fallback when billed units are absent. */
export type CohereUsage = { billed_units?: CohereTokenCounts; tokens?: CohereTokenCounts };

export type CohereContent = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type CohereToolCall = { id?: string; type?: 'function'; function?: { name?: string; arguments?: string } };

export type CohereMessage =
  | { role: 'system' | 'user'; content: string | CohereContent[] }
  | { role: 'tool'; tool_call_id: string; content: string }
  | {
      role: 'assistant';
      content?: string | CohereContent[];
      tool_plan?: string | CohereContent[];
      tool_calls?: CohereToolCall[];
    };

export type CohereTool = {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
};

export type CohereRequest = {
  model: string;
  messages: CohereMessage[];
  stream: boolean;
  max_tokens?: number;
  temperature?: number;
  p?: number;
  k?: number;
  stop_sequences?: string[];
  tools?: CohereTool[];
  tool_choice?: 'REQUIRED' | 'NONE';
  response_format?: { type: 'json_object'; json_schema?: Record<string, unknown> };
  thinking?: { type: 'enabled'; token_budget: number };
};

export type CohereResponse = {
  id?: string;
  finish_reason?: string;
  message?: {
    tool_plan?: string;
    content?: ({ type: 'text'; text: string } | { type: 'thinking'; thinking: string })[];
    tool_calls?: CohereToolCall[];
  };
  usage?: CohereUsage;
};

/** One stream event; `type` says which fields it carries (message-start, content-delta, tool-call-*, message-end). */
export type CohereStreamEvent = {
  type?: string;
  id?: string;
  index?: number;
  delta?: {
    message?: {
      content?: { text?: string; thinking?: string };
      tool_plan?: string;
      tool_calls?: CohereToolCall;
    };
    finish_reason?: string;
    error?: string;
    usage?: CohereUsage;
  };
};
