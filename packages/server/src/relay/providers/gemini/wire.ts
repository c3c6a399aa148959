/**
 * Gemini generateContent's wire shapes (request, answer, alt=sse chunk, usage) as Tollway reads and writes
 * them, written from the API reference and the `@google/genai` types. A Part is a proto `oneof`: one of its
 * data fields is set, so it is one type with optional fields, as in the SDK. Schemas (responseSchema,
 * parameters) are Gemini's OpenAPI subset and travel as plain JSON objects.
 */

export type GeminiUsage = {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  /** The prompt's and the answer's tokens by modality (TEXT, IMAGE, AUDIO, VIDEO). */
  promptTokensDetails?: { modality?: string; tokenCount?: number }[];
  candidatesTokensDetails?: { modality?: string; tokenCount?: number }[];
};

export type GeminiFunctionCall = { id?: string; name?: string; args?: Record<string, unknown> };
export type GeminiFunctionResponse = { id?: string; name?: string; response?: Record<string, unknown> };

export type GeminiPart = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType?: string; data?: string };
  fileData?: { mimeType?: string; fileUri?: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
};

export type GeminiContent = { role?: 'user' | 'model'; parts: GeminiPart[] };

export type GeminiFunctionDeclaration = {
  name: string;
  description?: string;
  /** Gemini's OpenAPI-subset schema. */
  parameters?: Record<string, unknown>;
  /** JSON Schema (Gemini 2.5 and later). */
  parametersJsonSchema?: Record<string, unknown>;
};

export type GeminiFunctionCallingConfig = { mode?: string; allowedFunctionNames?: string[] };

export type GeminiThinkingConfig = { includeThoughts?: boolean; thinkingBudget?: number; thinkingLevel?: string };

export type GeminiGenerationConfig = {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  /** Gemini's OpenAPI-subset schema. */
  responseSchema?: Record<string, unknown>;
  /** JSON Schema (Gemini 2.5 and later). */
  responseJsonSchema?: Record<string, unknown>;
  thinkingConfig?: GeminiThinkingConfig;
};

export type GeminiSafetySetting = { category: string; threshold: string };

export type GeminiRequest = {
  systemInstruction?: GeminiContent;
  contents?: GeminiContent[];
  tools?: { functionDeclarations?: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig?: GeminiFunctionCallingConfig };
  generationConfig?: GeminiGenerationConfig;
  safetySettings?: GeminiSafetySetting[];
};

export type GeminiCandidate = {
  content?: GeminiContent;
  finishReason?: string;
  index?: number;
  /** Set when the answer was grounded with Google Search (the queries it ran). */
  groundingMetadata?: { webSearchQueries?: unknown[] };
};

/** A whole answer, and each alt=sse chunk of a streamed one. */
export type GeminiResponse = {
  candidates?: GeminiCandidate[];
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
  promptFeedback?: { blockReason?: string };
  /** An error chunk mid-stream. */
  error?: { code?: number; message?: string; status?: string };
};
