import type { OptionsService } from '../../../core/options/service.js';
import type { JsonObject } from '../../ir/json-data.js';
import type { AnthropicRequest } from './wire.js';

/** The Claude settings of the models tab (claude.* options), as plain values. */
export interface ClaudeSettings {
  /** Per-model extra headers: {model: {header: [values]}}; values are joined with commas. */
  headers: Record<string, Record<string, string[]>>;
  /** Per-model default max_tokens with a `default` entry. */
  defaultMaxTokens: Record<string, number>;
  /** `-thinking` suffix handling on or off. */
  thinkingAdapter: boolean;
  /** Share of max_tokens given to budget_tokens when the suffix turns thinking on. */
  budgetShare: number;
}

export const claudeSettingsOf = (o: OptionsService): ClaudeSettings => ({
  headers: o.json('claude.model_headers_settings'),
  defaultMaxTokens: o.json('claude.default_max_tokens'),
  thinkingAdapter: o.bool('claude.thinking_adapter_enabled'),
  budgetShare: o.num('claude.thinking_adapter_budget_tokens_percentage'),
});

const SUFFIX = '-thinking';
/** Anthropic's smallest thinking budget; budget_tokens must also stay below max_tokens. */
const MIN_BUDGET = 1024;
/** The smallest max_tokens the adapter sends with thinking on (0.8 × 1280 = 1024, the smallest budget). */
const MIN_MAX_TOKENS_WITH_THINKING = 1280;
const FALLBACK_MAX_TOKENS = 8192;

/** The model without its `-thinking` suffix when the adapter is on (else unchanged) and whether it asked for thinking. */
export function claudeThinkingSuffix(
  model: string,
  s: Pick<ClaudeSettings, 'thinkingAdapter'>,
): { model: string; thinking: boolean } {
  if (!s.thinkingAdapter || !model.endsWith(SUFFIX) || model.length === SUFFIX.length)
    return { model, thinking: false };
  return { model: model.slice(0, -SUFFIX.length), thinking: true };
}

/** Default max_tokens for a model: its own entry (the suffixed name first), else `default`, else 8192. */
export function claudeDefaultMaxTokensOf(s: Pick<ClaudeSettings, 'defaultMaxTokens'>, ...names: string[]): number {
  for (const n of names) {
    const v = s.defaultMaxTokens[n];
    if (typeof v === 'number' && v > 0) return v;
  }
  const d = s.defaultMaxTokens.default;
  return typeof d === 'number' && d > 0 ? d : FALLBACK_MAX_TOKENS;
}

/** Extra upstream headers for a model (the suffixed name's entry first, then the base name's), lower-cased names. */
export function claudeHeadersOf(s: Pick<ClaudeSettings, 'headers'>, ...names: string[]): Record<string, string> {
  const table = names.map((n) => s.headers[n]).find((t) => t && typeof t === 'object') ?? {};
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(table))
    if (Array.isArray(values) && values.length) out[name.toLowerCase()] = values.join(',');
  return out;
}

/**
 * The Claude settings applied to an Anthropic Messages body about to go upstream for `model` (after channel
 * mapping, possibly with the `-thinking` suffix). Pure: returns the model to send, a new body and extra headers.
 * - max_tokens missing or 0 → the configured default for the model;
 * - `-thinking` (adapter on) → suffix stripped; thinking enabled with budget_tokens = max_tokens × share
 *   (max_tokens raised to 1280 first so the budget reaches Anthropic's 1024 minimum), temperature 1, top_p and
 *   top_k removed as Anthropic requires with thinking, a forced tool_choice relaxed to auto (thinking allows only
 *   auto or none). A body that already enables thinking keeps its own budget and tool choice.
 */
export function applyClaudeSettings(
  body: JsonObject,
  model: string,
  s: ClaudeSettings,
): { model: string; body: AnthropicRequest; headers: Record<string, string> } {
  const { model: base, thinking } = claudeThinkingSuffix(model, s);
  // Every field of the caller's body passes on; the ones read here are typed.
  const out = { ...body } as AnthropicRequest;
  if ('model' in out) out.model = base;
  if (!(Number(out.max_tokens) > 0)) out.max_tokens = claudeDefaultMaxTokensOf(s, model, base);
  if (thinking) {
    if (out.thinking?.type !== 'enabled') {
      out.max_tokens = Math.max(Number(out.max_tokens), MIN_MAX_TOKENS_WITH_THINKING);
      const budget = Math.min(Math.max(Math.floor(out.max_tokens * s.budgetShare), MIN_BUDGET), out.max_tokens - 1);
      out.thinking = { type: 'enabled', budget_tokens: budget };
      // Anthropic accepts only tool_choice auto or none with thinking: a forced choice would fail the call.
      const tc = out.tool_choice;
      if (tc?.type === 'any' || tc?.type === 'tool')
        out.tool_choice = {
          type: 'auto',
          ...(tc.disable_parallel_tool_use !== undefined
            ? { disable_parallel_tool_use: tc.disable_parallel_tool_use }
            : {}),
        };
    }
    out.temperature = 1;
    delete out.top_p;
    delete out.top_k;
  }
  return { model: base, body: out, headers: claudeHeadersOf(s, model, base) };
}
