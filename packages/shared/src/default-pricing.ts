/**
 * Default pricing shipped with Tollway, editable as options. Model ratio = dollars per 1M input tokens / 2;
 * completion ratio = output price / input price; cache ratio = cached-input price / input price;
 * model price = dollars per call. Prices are the providers' public list prices.
 */
export const defaultModelRatio: Record<string, number> = {
  'gpt-4o': 1.25,
  'gpt-4o-2024-11-20': 1.25,
  'gpt-4o-mini': 0.075,
  'gpt-4.1': 1,
  'gpt-4.1-mini': 0.2,
  'gpt-4.1-nano': 0.05,
  'gpt-5': 0.625,
  'gpt-5-mini': 0.125,
  'gpt-5-nano': 0.025,
  o1: 7.5,
  o3: 1,
  'o3-mini': 0.55,
  'o4-mini': 0.55,
  'gpt-3.5-turbo': 0.25,
  'gpt-4-turbo': 5,
  'text-embedding-3-small': 0.01,
  'text-embedding-3-large': 0.065,
  'text-embedding-ada-002': 0.05,
  'omni-moderation-latest': 0,
  'claude-3-5-haiku-20241022': 0.4,
  'claude-haiku-4-5-20251001': 0.5,
  'claude-sonnet-4-20250514': 1.5,
  'claude-sonnet-4-5-20250929': 1.5,
  'claude-opus-4-1-20250805': 7.5,
  'gemini-2.0-flash': 0.05,
  'gemini-2.5-flash': 0.15,
  'gemini-2.5-flash-lite': 0.05,
  'gemini-2.5-pro': 0.625,
  'deepseek-chat': 0.135,
  'deepseek-reasoner': 0.275,
  'grok-4': 1.5,
  'grok-3-mini': 0.15,
  'mistral-large-latest': 1,
  'mistral-small-latest': 0.05,
  'moonshot-v1-8k': 1,
  'kimi-k2-0905-preview': 0.3,
};

export const defaultCompletionRatio: Record<string, number> = {
  'gpt-4o': 4,
  'gpt-4o-2024-11-20': 4,
  'gpt-4o-mini': 4,
  'gpt-4.1': 4,
  'gpt-4.1-mini': 4,
  'gpt-4.1-nano': 4,
  'gpt-5': 8,
  'gpt-5-mini': 8,
  'gpt-5-nano': 8,
  o1: 4,
  o3: 4,
  'o3-mini': 4,
  'o4-mini': 4,
  'gpt-3.5-turbo': 3,
  'gpt-4-turbo': 3,
  'claude-3-5-haiku-20241022': 5,
  'claude-haiku-4-5-20251001': 5,
  'claude-sonnet-4-20250514': 5,
  'claude-sonnet-4-5-20250929': 5,
  'claude-opus-4-1-20250805': 5,
  'gemini-2.0-flash': 4,
  'gemini-2.5-flash': 8.333333,
  'gemini-2.5-flash-lite': 4,
  'gemini-2.5-pro': 8,
  'deepseek-chat': 4.074074,
  'deepseek-reasoner': 3.981818,
  'grok-4': 5,
  'grok-3-mini': 1.666667,
  'mistral-large-latest': 3,
  'mistral-small-latest': 3,
  'moonshot-v1-8k': 1,
  'kimi-k2-0905-preview': 4.166667,
};

export const defaultCacheRatio: Record<string, number> = {
  'gpt-4o': 0.5,
  'gpt-4o-mini': 0.5,
  'gpt-4.1': 0.25,
  'gpt-4.1-mini': 0.25,
  'gpt-4.1-nano': 0.25,
  'gpt-5': 0.1,
  'gpt-5-mini': 0.1,
  'gpt-5-nano': 0.1,
  o3: 0.25,
  'o4-mini': 0.25,
  'claude-3-5-haiku-20241022': 0.1,
  'claude-haiku-4-5-20251001': 0.1,
  'claude-sonnet-4-20250514': 0.1,
  'claude-sonnet-4-5-20250929': 0.1,
  'claude-opus-4-1-20250805': 0.1,
  'gemini-2.5-flash': 0.25,
  'gemini-2.5-pro': 0.25,
  'deepseek-chat': 0.25,
  'deepseek-reasoner': 0.25,
};

/** Anthropic charges 1.25× input for cache writes (5-minute TTL). */
export const DEFAULT_CACHE_CREATION_RATIO = 1.25;

export const defaultModelPrice: Record<string, number> = {
  'dall-e-3': 0.04,
  'dall-e-2': 0.02,
  'gpt-image-1': 0.042,
  'tts-1': 0.015,
  'whisper-1': 0.006,
  // Per task, as new-api prices them: Midjourney actions (inpaint and custom zoom are billed as mj_modal), Suno.
  mj_imagine: 0.1,
  mj_edits: 0.1,
  mj_variation: 0.1,
  mj_reroll: 0.1,
  mj_blend: 0.1,
  mj_modal: 0.1,
  mj_zoom: 0.1,
  mj_shorten: 0.1,
  mj_high_variation: 0.1,
  mj_low_variation: 0.1,
  mj_pan: 0.1,
  mj_describe: 0.05,
  mj_upscale: 0.05,
  mj_upload: 0.05,
  swap_face: 0.05,
  mj_video: 0.8,
  suno_music: 0.1,
  suno_lyrics: 0.01,
};

/**
 * The model ratio of a model with no price, served to a user who accepts unset ratios
 * (accept_unset_model_ratio_model) or in self-use mode: new-api's default ratio (37.5, $75 per million tokens),
 * a high price so that an unpriced model is never a free one.
 */
export const UNSET_MODEL_RATIO = 37.5;
/** The per-task price (USD) of an unpriced task model so served: half the unset ratio, as new-api charges it. */
export const UNSET_TASK_PRICE = UNSET_MODEL_RATIO / 2;
