import { emptyUsage, type IRUsage } from '../../ir/types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;

/** Field names of OpenAI's two usage shapes: Chat Completions (prompt/completion) and Responses (input/output). */
export interface OpenAIUsageNames {
  input: string;
  output: string;
  inputDetails: string;
  outputDetails: string;
}

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
export function openAIUsageToIR(u: Json | undefined | null, n: OpenAIUsageNames): IRUsage {
  if (!u) return emptyUsage();
  const cacheRead = Number(u[n.inputDetails]?.cached_tokens ?? 0);
  const cacheWrite = Number(u[n.inputDetails]?.cache_write_tokens ?? u[n.inputDetails]?.cache_creation_tokens ?? 0);
  return {
    inputTokens: Math.max(0, Number(u[n.input] ?? 0) - cacheRead - cacheWrite),
    outputTokens: Number(u[n.output] ?? 0),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: Number(u[n.outputDetails]?.reasoning_tokens ?? 0),
  };
}

/** IR usage → OpenAI usage of either shape. */
export function openAIUsageFromIR(u: IRUsage, n: OpenAIUsageNames): Json {
  const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  return {
    [n.input]: input,
    [n.output]: u.outputTokens,
    total_tokens: input + u.outputTokens,
    // Responses always names its cache writes (cache_write_tokens); Chat Completions only when there are some.
    [n.inputDetails]:
      n === responsesUsageNames
        ? { cached_tokens: u.cacheReadTokens, cache_write_tokens: u.cacheWriteTokens }
        : {
            cached_tokens: u.cacheReadTokens,
            ...(u.cacheWriteTokens ? { cache_creation_tokens: u.cacheWriteTokens } : {}),
          },
    [n.outputDetails]: { reasoning_tokens: u.reasoningTokens },
  };
}
