import type { TokenKinds } from '@tollway/shared';
import { openAITokenKinds } from '../../ir/token-kinds.js';
import { emptyUsage, type IRUsage } from '../../ir/types.js';
import type { ChatUsage, ResponsesUsage } from './wire.js';

/** Field names of OpenAI's two usage shapes: Chat Completions (prompt/completion) and Responses (input/output). */
export interface OpenAIUsageNames {
  input: 'prompt_tokens' | 'input_tokens';
  output: 'completion_tokens' | 'output_tokens';
  inputDetails: 'prompt_tokens_details' | 'input_tokens_details';
  outputDetails: 'completion_tokens_details' | 'output_tokens_details';
}

/** Either usage shape, as read from an upstream (any field may be missing). */
export type OpenAIUsage = Partial<ChatUsage> & Partial<ResponsesUsage>;

export const chatUsageNames: OpenAIUsageNames = {
  input: 'prompt_tokens',
  output: 'completion_tokens',
  inputDetails: 'prompt_tokens_details',
  outputDetails: 'completion_tokens_details',
};
export const responsesUsageNames: OpenAIUsageNames = {
  input: 'input_tokens',
  output: 'output_tokens',
  inputDetails: 'input_tokens_details',
  outputDetails: 'output_tokens_details',
};

/** OpenAI usage (input counts include cache reads and writes) → IR usage (input excludes them). */
export function openAIUsageToIR(u: OpenAIUsage | undefined | null, n: OpenAIUsageNames): IRUsage {
  if (!u) return emptyUsage();
  const cacheRead = Number(u[n.inputDetails]?.cached_tokens ?? 0);
  const cacheWrite = Number(u[n.inputDetails]?.cache_write_tokens ?? u[n.inputDetails]?.cache_creation_tokens ?? 0);
  return {
    inputTokens: Math.max(0, Number(u[n.input] ?? 0) - cacheRead - cacheWrite),
    outputTokens: Number(u[n.output] ?? 0),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: Number(u[n.outputDetails]?.reasoning_tokens ?? 0),
    ...withKinds(openAITokenKinds(u[n.inputDetails], u[n.outputDetails])),
  };
}

const withKinds = (kinds: TokenKinds | undefined): { kinds?: TokenKinds } => (kinds ? { kinds } : {});

/** IR usage → Chat Completions usage; cache writes are named only when there are some. */
export function chatUsageFromIR(u: IRUsage): ChatUsage {
  const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  return {
    prompt_tokens: input,
    completion_tokens: u.outputTokens,
    total_tokens: input + u.outputTokens,
    prompt_tokens_details: {
      cached_tokens: u.cacheReadTokens,
      ...(u.cacheWriteTokens ? { cache_creation_tokens: u.cacheWriteTokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

/** IR usage → Responses usage; Responses always names its cache writes (cache_write_tokens). */
export function responsesUsageFromIR(u: IRUsage): ResponsesUsage {
  const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  return {
    input_tokens: input,
    output_tokens: u.outputTokens,
    total_tokens: input + u.outputTokens,
    input_tokens_details: { cached_tokens: u.cacheReadTokens, cache_write_tokens: u.cacheWriteTokens },
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

/** IR usage → OpenAI usage of either shape. */
export const openAIUsageFromIR = (u: IRUsage, n: OpenAIUsageNames): ChatUsage | ResponsesUsage =>
  n === responsesUsageNames ? responsesUsageFromIR(u) : chatUsageFromIR(u);
