import type { IRUsage } from './types.js';

/**
 * Tools a provider ran on its side, counted from its answer under new-api's tool price names: the Responses API's
 * output items (`web_search_call` → web_search_preview, `file_search_call` → file_search), and Gemini's grounding
 * with Google Search (a grounded answer → one google_search, as Google bills per grounded prompt).
 */
export type ToolCalls = Readonly<Record<string, number>>;

const RESPONSES_TOOL_ITEMS: Readonly<Record<string, string>> = {
  web_search_call: 'web_search_preview',
  file_search_call: 'file_search',
};

/** The built-in tool calls among a Responses object's output items; undefined when none. */
export function responsesToolCalls(output: unknown): ToolCalls | undefined {
  if (!Array.isArray(output)) return undefined;
  const calls: Record<string, number> = {};
  for (const item of output) {
    const tool = RESPONSES_TOOL_ITEMS[String((item as { type?: unknown } | null)?.type)];
    if (tool) calls[tool] = (calls[tool] ?? 0) + 1;
  }
  return Object.keys(calls).length ? calls : undefined;
}

/** One google_search when a Gemini candidate says its answer was grounded by web searches. */
export function groundingToolCalls(candidates: unknown): ToolCalls | undefined {
  if (!Array.isArray(candidates)) return undefined;
  const grounded = candidates.some((c) => {
    const queries = (c as { groundingMetadata?: { webSearchQueries?: unknown } } | null)?.groundingMetadata
      ?.webSearchQueries;
    return Array.isArray(queries) && queries.length > 0;
  });
  return grounded ? { google_search: 1 } : undefined;
}

/** `usage` with `calls` as its tool calls (kept as it was when there are none). */
export function withToolCalls(usage: IRUsage, calls: ToolCalls | undefined): IRUsage {
  return calls ? { ...usage, toolCalls: calls } : usage;
}
