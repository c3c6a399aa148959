import type { OptionsService } from '../../../core/options/service.js';
import type { JsonObject } from '../../ir/json-data.js';
import type { GeminiGenerationConfig, GeminiRequest, GeminiSafetySetting, GeminiThinkingConfig } from './wire.js';

/** The snake_case spellings proto JSON also accepts, which a caller's body may use. */
type SnakeCaseRequest = GeminiRequest & {
  safety_settings?: GeminiSafetySetting[];
  generation_config?: GeminiGenerationConfig & { max_output_tokens?: number };
};

/**
 * A generateContent body after the settings: every field of the caller's body, as it was sent. Its fields are
 * the caller's to read (tests read a tuned body's thinkingConfig directly), so it is left open.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the caller's own body, passed through whole
export type TunedGeminiBody = Record<string, any>;

/** The Gemini settings of the models tab (gemini.* options), as plain values. */
export interface GeminiSettings {
  /** Threshold per harm category ({HARM_CATEGORY_…: threshold}) with a `default`. */
  safety: Record<string, string>;
  /** API version per model ({model: 'v1'}) with a `default` ('v1beta'). */
  versions: Record<string, string>;
  /** `-thinking` / `-nothinking` / `-thinking-<budget>` suffixes and reasoning_effort handling on or off. */
  thinkingAdapter: boolean;
  /** Share of maxOutputTokens given to thinkingBudget for a plain `-thinking` suffix. */
  budgetShare: number;
  /** Model name prefixes that accept thinkingBudget (others only get includeThoughts). */
  budgetModels: string[];
}

export const geminiSettingsOf = (o: OptionsService): GeminiSettings => ({
  safety: o.json('gemini.safety_settings'),
  versions: o.json('gemini.version_settings'),
  thinkingAdapter: o.bool('gemini.thinking_adapter_enabled'),
  budgetShare: o.num('gemini.thinking_adapter_budget_tokens_percentage'),
  budgetModels: o.json('gemini.models_supported_thinking_budget'),
});

/** The harm categories of the Gemini API that a request's safetySettings may set. */
export const GEMINI_HARM_CATEGORIES = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_CIVIC_INTEGRITY',
] as const;

/** safetySettings for a request: every category with its configured threshold, else the default, else OFF. */
export const geminiSafetySettings = (s: Pick<GeminiSettings, 'safety'>): GeminiSafetySetting[] =>
  GEMINI_HARM_CATEGORIES.map((category) => ({ category, threshold: s.safety[category] || s.safety.default || 'OFF' }));

/** The API version in the URL for a model: its own entry, else `default`, else v1beta. */
export const geminiApiVersion = (s: Pick<GeminiSettings, 'versions'>, model: string): string =>
  s.versions[model] || s.versions.default || 'v1beta';

export type GeminiThinkingAsk = { mode: 'thinking' } | { mode: 'nothinking' } | { mode: 'budget'; budget: number };

/** The model without its thinking suffix and what the suffix asked for (nothing when the adapter is off). */
export function geminiThinkingSuffix(
  model: string,
  s: Pick<GeminiSettings, 'thinkingAdapter'>,
): { model: string; ask?: GeminiThinkingAsk } {
  if (!s.thinkingAdapter) return { model };
  const budget = /^(.+)-thinking-(\d+)$/.exec(model);
  if (budget) return { model: budget[1]!, ask: { mode: 'budget', budget: Number(budget[2]) } };
  if (model.endsWith('-nothinking') && model.length > 11)
    return { model: model.slice(0, -11), ask: { mode: 'nothinking' } };
  if (model.endsWith('-thinking') && model.length > 9) return { model: model.slice(0, -9), ask: { mode: 'thinking' } };
  return { model };
}

/**
 * The thinking budget range of a model, from the Gemini docs: 2.5 Pro 128–32768 and thinking cannot be turned
 * off; 2.5 Flash-Lite 512–24576; other Flash models 0–24576 (0 turns thinking off).
 */
export function geminiBudgetRange(model: string): { min: number; max: number; canDisable: boolean } {
  if (model.includes('-pro')) return { min: 128, max: 32768, canDisable: false };
  if (model.includes('flash-lite')) return { min: 512, max: 24576, canDisable: true };
  return { min: 0, max: 24576, canDisable: true };
}

const clampBudget = (model: string, n: number): number => {
  const r = geminiBudgetRange(model);
  return Math.min(r.max, Math.max(r.min, Math.floor(n)));
};

/** Share of the model's largest budget per reasoning effort (minimal: the smallest budget). */
const EFFORT_SHARE: Record<string, number> = { low: 0.2, medium: 0.5, high: 0.8 };

/** The thinkingConfig a suffix or a reasoning effort asks for; undefined leaves the request's own. */
function thinkingConfigFor(
  model: string,
  maxOutput: number | undefined,
  s: GeminiSettings,
  ask?: GeminiThinkingAsk,
  effort?: string,
): GeminiThinkingConfig | undefined {
  const budgets = s.budgetModels.some((p) => model.startsWith(p));
  const range = geminiBudgetRange(model);
  if (ask?.mode === 'nothinking') return budgets && range.canDisable ? { thinkingBudget: 0 } : undefined;
  if (ask?.mode === 'budget')
    return budgets
      ? { includeThoughts: true, thinkingBudget: clampBudget(model, ask.budget) }
      : { includeThoughts: true };
  if (ask?.mode === 'thinking') {
    const share =
      maxOutput && maxOutput > 0 && budgets ? { thinkingBudget: clampBudget(model, maxOutput * s.budgetShare) } : {};
    return { includeThoughts: true, ...share };
  }
  if (!effort || !budgets) return undefined;
  if (effort === 'minimal' || effort === 'none')
    return range.canDisable ? { thinkingBudget: 0 } : { includeThoughts: true, thinkingBudget: range.min };
  const share = EFFORT_SHARE[effort];
  return share ? { includeThoughts: true, thinkingBudget: clampBudget(model, range.max * share) } : undefined;
}

/**
 * The Gemini settings applied to a generateContent body about to go upstream for `model` (after channel
 * mapping, possibly suffixed). Pure: returns the model for the URL (suffix stripped) and a new body.
 * - safetySettings from gemini.safety_settings when the request sets none;
 * - adapter on: `-thinking` → includeThoughts with thinkingBudget = maxOutputTokens × share (when
 *   maxOutputTokens is set), `-thinking-<n>` → budget n, `-nothinking` → budget 0 (models that cannot turn thinking off keep the request's own),
 *   each clamped to the model's range; otherwise an OpenAI reasoning_effort (low/medium/high = 20/50/80 % of
 *   the model's largest budget) becomes the thinkingConfig. Budgets only for models in
 *   gemini.models_supported_thinking_budget.
 */
export function applyGeminiSettings(
  body: JsonObject,
  model: string,
  s: GeminiSettings,
  effort?: string,
): { model: string; body: TunedGeminiBody } {
  const { model: base, ask } = geminiThinkingSuffix(model, s);
  const out = { ...body } as SnakeCaseRequest;
  if (!Array.isArray(out.safetySettings) && !Array.isArray(out.safety_settings))
    out.safetySettings = geminiSafetySettings(s);
  if (!s.thinkingAdapter) return { model: base, body: out };
  const gen: GeminiGenerationConfig & { max_output_tokens?: number; thinking_config?: unknown } = {
    ...(out.generationConfig ?? out.generation_config ?? {}),
  };
  const maxOutput = Number(gen.maxOutputTokens ?? gen.max_output_tokens) || undefined;
  const thinking = thinkingConfigFor(base, maxOutput, s, ask, ask ? undefined : effort);
  if (thinking) {
    delete gen.thinking_config;
    gen.thinkingConfig = thinking;
    delete out.generation_config;
    out.generationConfig = gen;
  }
  return { model: base, body: out };
}
