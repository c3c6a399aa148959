import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { EmbeddingModel, LanguageModel } from 'ai';
import type { ConformanceFixture } from './conformance.js';

/**
 * The Vercel AI SDK's providers, each pointed at the gateway by base URL with the user's key, the way a user
 * configures them for any OpenAI-, Anthropic- or Gemini-compatible endpoint.
 */

/** Compatibility-table clients: `openai(id)` speaks the Responses API, `openai.chat(id)` chat completions. */
export const AI_SDK_CHAT_CLIENTS = [
  'ai-sdk/openai',
  'ai-sdk/openai (chat completions)',
  'ai-sdk/openai-compatible',
  'ai-sdk/anthropic',
  'ai-sdk/google',
] as const;
export type AiSdkChatClient = (typeof AI_SDK_CHAT_CLIENTS)[number];
export const AI_SDK_EMBEDDING_CLIENTS = ['ai-sdk/openai', 'ai-sdk/openai-compatible', 'ai-sdk/google'] as const;
export type AiSdkEmbeddingClient = (typeof AI_SDK_EMBEDDING_CLIENTS)[number];

/** Name of the openai-compatible provider instance (its options key). */
const COMPATIBLE_NAME = 'tollway';

function providers(fx: ConformanceFixture) {
  const v1 = `${fx.base}/v1`;
  return {
    openai: createOpenAI({ baseURL: v1, apiKey: fx.key }),
    anthropic: createAnthropic({ baseURL: v1, apiKey: fx.key }),
    google: createGoogleGenerativeAI({ baseURL: `${fx.base}/v1beta`, apiKey: fx.key }),
    // A gateway user turns on usage in streams and JSON-schema output (off by default for unknown endpoints).
    compatible: createOpenAICompatible({
      name: COMPATIBLE_NAME,
      baseURL: v1,
      apiKey: fx.key,
      includeUsage: true,
      supportsStructuredOutputs: true,
    }),
  };
}

/** A chat model of `client` for `modelId` through the gateway. */
export function aiSdkModel(fx: ConformanceFixture, client: AiSdkChatClient, modelId: string): LanguageModel {
  const p = providers(fx);
  switch (client) {
    case 'ai-sdk/openai':
      return p.openai(modelId);
    case 'ai-sdk/openai (chat completions)':
      return p.openai.chat(modelId);
    case 'ai-sdk/openai-compatible':
      return p.compatible(modelId);
    case 'ai-sdk/anthropic':
      return p.anthropic(modelId);
    case 'ai-sdk/google':
      return p.google(modelId);
  }
}

/** An embedding model of `client` for `modelId` through the gateway. */
export function aiSdkEmbeddingModel(
  fx: ConformanceFixture,
  client: AiSdkEmbeddingClient,
  modelId: string,
): EmbeddingModel {
  const p = providers(fx);
  if (client === 'ai-sdk/openai') return p.openai.embeddingModel(modelId);
  if (client === 'ai-sdk/openai-compatible') return p.compatible.embeddingModel(modelId);
  return p.google.embeddingModel(modelId);
}
