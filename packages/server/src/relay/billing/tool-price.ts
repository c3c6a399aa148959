import { add, dec, mul, roundToInt, type Dec } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';

/**
 * Tool calls a provider runs on its side (web search, file search), priced per call as new-api does: dollars per
 * 1,000 calls by `tool_price_setting.prices`, whose keys are a tool (`web_search`) or a tool for models by prefix
 * (`web_search_preview:gpt-4o*`); the longest matching prefix wins, then the tool's own price, then new-api's
 * built-in price below, else nothing.
 */

/** new-api's built-in tool prices, in dollars per 1,000 calls (an operator's option overrides each). */
export const DEFAULT_TOOL_PRICES: Readonly<Record<string, number>> = {
  web_search: 10,
  web_search_preview: 10,
  file_search: 2.5,
  google_search: 14,
  'web_search_preview:gpt-4o*': 25,
  'web_search_preview:gpt-4.1*': 25,
  'web_search_preview:gpt-4o-mini*': 25,
  'web_search_preview:gpt-4.1-mini*': 25,
};

/** Prices are per 1,000 calls. */
const CALLS_PER_PRICE_SCALE = 3;

interface ToolIndex {
  own: Map<string, number>;
  /** Per tool, model prefixes longest first. */
  prefixes: Map<string, { prefix: string; price: number }[]>;
}

/** The index of one saved price map (the options service hands out the same object until the option changes). */
const indexes = new WeakMap<object, ToolIndex>();

function indexOf(saved: Readonly<Record<string, number>>): ToolIndex {
  const hit = indexes.get(saved);
  if (hit) return hit;
  const index: ToolIndex = { own: new Map(), prefixes: new Map() };
  for (const [key, price] of Object.entries({ ...DEFAULT_TOOL_PRICES, ...saved })) {
    const colon = key.indexOf(':');
    if (colon < 0) {
      index.own.set(key, price);
      continue;
    }
    const tool = key.slice(0, colon);
    const list = index.prefixes.get(tool) ?? [];
    list.push({ prefix: key.slice(colon + 1).replace(/\*$/, ''), price });
    index.prefixes.set(tool, list);
  }
  for (const list of index.prefixes.values()) list.sort((a, b) => b.prefix.length - a.prefix.length);
  indexes.set(saved, index);
  return index;
}

/** Dollars per 1,000 calls of `tool` by `model`. */
export function toolPrice(saved: Readonly<Record<string, number>>, tool: string, model: string): number {
  const index = indexOf(saved);
  const byPrefix = index.prefixes.get(tool)?.find((p) => model.startsWith(p.prefix));
  return byPrefix?.price ?? index.own.get(tool) ?? 0;
}

/**
 * Quota of a call's tool calls, exact: Σ calls × price ÷ 1,000 × quota per unit × group ratio, rounded once, half
 * away from zero. 0 without tool calls.
 */
export function toolQuota(
  options: OptionsService,
  model: string,
  calls: Readonly<Record<string, number>> | undefined,
  groupRatio: number,
  quotaPerUnit: number,
): number {
  if (!calls) return 0;
  const saved = options.json<Record<string, number>>('tool_price_setting.prices');
  let dollarsPerThousand: Dec = dec(0);
  for (const [tool, count] of Object.entries(calls))
    if (count > 0) dollarsPerThousand = add(dollarsPerThousand, mul(dec(count), dec(toolPrice(saved, tool, model))));
  const quota = mul(mul(dollarsPerThousand, dec(quotaPerUnit)), dec(groupRatio));
  return Number(roundToInt({ m: quota.m, s: quota.s + CALLS_PER_PRICE_SCALE }));
}

/** Chat models that search on every call (new-api: a model named *search-preview is one web_search_preview call). */
const SEARCH_PREVIEW_SUFFIX = 'search-preview';

/** The tool calls a call is billed for: those the provider reported, or a search-preview model's one search. */
export function billedToolCalls(
  model: string,
  calls: Readonly<Record<string, number>> | undefined,
): Readonly<Record<string, number>> | undefined {
  if (calls && Object.values(calls).some((n) => n > 0)) return calls;
  return model.endsWith(SEARCH_PREVIEW_SUFFIX) ? { web_search_preview: 1 } : calls;
}

/** Anthropic's server web search tool types (web_search_20250305 …). */
const ANTHROPIC_WEB_SEARCH = /^web_search_/;
/** The Responses API's hosted web search tools. */
const RESPONSES_WEB_SEARCH = new Set(['web_search', 'web_search_preview', 'web_search_preview_2025_03_11']);

type ToolDecl = { type?: unknown; max_uses?: unknown; googleSearch?: unknown; google_search?: unknown };

/**
 * The provider-run tool calls a request declares, for its hold (the charge reads the answer's own count): Anthropic's
 * web search up to its max_uses (1 when unset), a Responses web search tool, Gemini's googleSearch, and a
 * search-preview chat model's search; one call each where the request sets no number.
 */
export function declaredToolCalls(
  body: Readonly<Record<string, unknown>>,
  model: string,
): Readonly<Record<string, number>> | undefined {
  const calls: Record<string, number> = {};
  const tools = Array.isArray(body.tools) ? (body.tools as ToolDecl[]) : [];
  for (const t of tools) {
    if (!t || typeof t !== 'object') continue;
    const type = typeof t.type === 'string' ? t.type : '';
    if (RESPONSES_WEB_SEARCH.has(type)) calls.web_search_preview = 1;
    else if (ANTHROPIC_WEB_SEARCH.test(type)) {
      const uses =
        typeof t.max_uses === 'number' && Number.isSafeInteger(t.max_uses) && t.max_uses > 0 ? t.max_uses : 1;
      calls.web_search = (calls.web_search ?? 0) + Math.min(uses, MAX_DECLARED_TOOL_CALLS);
    } else if (t.googleSearch !== undefined || t.google_search !== undefined) calls.google_search = 1;
  }
  if (model.endsWith(SEARCH_PREVIEW_SUFFIX)) calls.web_search_preview = 1;
  return Object.keys(calls).length ? calls : undefined;
}

/** A request's max_uses beyond this is held at this many calls (the answer's count is charged in any case). */
const MAX_DECLARED_TOOL_CALLS = 100;
