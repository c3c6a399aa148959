import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import type { ConformanceFixture } from './conformance.js';

/**
 * LangChain's chat models pointed at the gateway the way a user configures them for a compatible endpoint:
 * ChatOpenAI by `configuration.baseURL` (chat completions, or the Responses API), ChatAnthropic by
 * `anthropicApiUrl`, each with the user's key.
 */

/** Compatibility-table clients. */
export const LANGCHAIN_CHAT_CLIENTS = [
  '@langchain/openai',
  '@langchain/openai (Responses API)',
  '@langchain/anthropic',
] as const;
export type LangChainChatClient = (typeof LANGCHAIN_CHAT_CLIENTS)[number];

/** A chat model of `client` for `model` through the gateway. */
export function langchainModel(fx: ConformanceFixture, client: LangChainChatClient, model: string): BaseChatModel {
  if (client === '@langchain/anthropic') return new ChatAnthropic({ model, apiKey: fx.key, anthropicApiUrl: fx.base });
  const useResponsesApi = client === '@langchain/openai (Responses API)';
  return new ChatOpenAI({ model, apiKey: fx.key, configuration: { baseURL: `${fx.base}/v1` }, useResponsesApi });
}

/** OpenAIEmbeddings for `model` through the gateway (it asks for base64 vectors). */
export function langchainEmbeddings(fx: ConformanceFixture, model: string): OpenAIEmbeddings {
  return new OpenAIEmbeddings({ model, apiKey: fx.key, configuration: { baseURL: `${fx.base}/v1` } });
}
