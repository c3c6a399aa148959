/** Bedrock Converse's wire shapes (`/converse`, `/converse-stream`) as Tollway writes the request and reads the answer and its events. */

export type ConverseUsage = {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
};

/** A content block is a union: exactly one of its fields is set. */
export type ConverseBlock = {
  text?: string;
  image?: { format: string; source: { bytes: string } };
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
  toolResult?: { toolUseId: string; content: { text: string }[]; status?: 'error' };
  reasoningContent?: { reasoningText?: { text?: string; signature?: string }; redactedContent?: string };
};

export type ConverseMessage = { role: 'user' | 'assistant'; content: ConverseBlock[] };

export type ConverseToolConfig = {
  tools: { toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } } }[];
  toolChoice?: { any: Record<string, never> } | { auto: Record<string, never> } | { tool: { name: string } };
};

export type ConverseRequest = {
  messages: ConverseMessage[];
  system?: { text: string }[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  additionalModelRequestFields?: Record<string, unknown>;
  toolConfig?: ConverseToolConfig;
};

export type ConverseResponse = {
  output?: { message?: { content?: ConverseBlock[] } };
  stopReason?: string;
  usage?: ConverseUsage;
};

/** One stream event's payload; the event name says which fields it carries. */
export type ConverseStreamEvent = {
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: {
    text?: string;
    toolUse?: { input?: string };
    reasoningContent?: { text?: string; signature?: string };
  };
  stopReason?: string;
  usage?: ConverseUsage;
  message?: string;
};
