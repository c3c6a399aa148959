import type { IRRequest } from '../../ir/types.js';

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/**
 * The reasoning effort for formats that only know efforts (OpenAI Chat reasoning_effort, Responses
 * reasoning.effort): the effort asked for, else one from a token budget (Anthropic budget_tokens, Gemini
 * thinkingBudget): under 4096 low, under 16384 medium, else high — the budgets the other formats give those
 * efforts. A budget of 0 (thinking off) or a dynamic budget without a number gives none.
 */
export function reasoningEffortOf(r: IRRequest['reasoning']): ReasoningEffort | undefined {
  if (r?.effort) return r.effort;
  const b = r?.budgetTokens;
  if (b === undefined || b <= 0) return undefined;
  return b < 4096 ? 'low' : b < 16384 ? 'medium' : 'high';
}
