/** Tencent Hunyuan ChatCompletions' wire shapes (Tencent Cloud API 3.0, PascalCase) as Tollway writes and reads them. */

export type HunyuanUsage = { PromptTokens?: number; CompletionTokens?: number; TotalTokens?: number };

export type HunyuanToolCall = {
  Id?: string;
  Type?: 'function';
  Index?: number;
  Function?: { Name?: string; Arguments?: string };
};

export type HunyuanContent = { Type: 'text'; Text: string } | { Type: 'image_url'; ImageUrl: { Url: string } };

export type HunyuanMessage = {
  Role: 'system' | 'user' | 'assistant' | 'tool';
  Content?: string;
  Contents?: HunyuanContent[];
  ToolCallId?: string;
  ToolCalls?: HunyuanToolCall[];
};

/** Parameters travel as JSON text. */
export type HunyuanTool = { Type: 'function'; Function: { Name: string; Description?: string; Parameters: string } };

export type HunyuanRequest = {
  Model: string;
  Messages: HunyuanMessage[];
  Stream: boolean;
  Temperature?: number;
  TopP?: number;
  Tools?: HunyuanTool[];
  ToolChoice?: 'none' | 'auto' | 'custom';
  CustomTool?: HunyuanTool;
};

export type HunyuanError = { Code?: string; Message?: string };

type HunyuanMessageFields = { Content?: string; ReasoningContent?: string; ToolCalls?: HunyuanToolCall[] };

/** A whole answer's `Response`, and (without the envelope) each stream chunk. */
export type HunyuanResponse = {
  Id?: string;
  RequestId?: string;
  Choices?: { Message?: HunyuanMessageFields; Delta?: HunyuanMessageFields; FinishReason?: string }[];
  Usage?: HunyuanUsage;
  Error?: HunyuanError;
};

/** An answer: `{Response: …}`; a stream chunk carries `Response` only to report an error. */
export type HunyuanEnvelope = HunyuanResponse & { Response?: HunyuanResponse };
