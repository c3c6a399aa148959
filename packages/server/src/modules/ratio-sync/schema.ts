import type { OptionKey } from '@tollway/shared';
import { z } from 'zod';

/** The price fields compared and exposed, as new-api names them; each is an option holding a model → number map. */
export const PRICE_FIELDS = ['model_ratio', 'completion_ratio', 'cache_ratio', 'model_price'] as const;
export type PriceField = (typeof PRICE_FIELDS)[number];
/** The option behind each field (what the console's accept writes through PUT /api/option/). */
export const OPTION_OF: Record<PriceField, OptionKey> = {
  model_ratio: 'ModelRatio',
  completion_ratio: 'CompletionRatio',
  cache_ratio: 'CacheRatio',
  model_price: 'ModelPrice',
};
/** Field → model → value. */
export type PriceData = Record<PriceField, Record<string, number>>;

/** Upstreams one fetch may ask for. */
export const MAX_UPSTREAMS = 50;
/** Default and longest wait for one upstream, in seconds. */
export const DEFAULT_TIMEOUT_S = 10;
export const MAX_TIMEOUT_S = 30;
/** Upstreams fetched at once. */
export const MAX_CONCURRENT_FETCHES = 8;
/** Largest answer read from one upstream. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Models read from one upstream (further ones are ignored). */
export const MAX_MODELS_PER_UPSTREAM = 20_000;
/** Longest model name kept. */
export const MAX_MODEL_NAME = 200;
/** The path fetched when an upstream names none: new-api's pricing page, which every new-api answers. */
export const DEFAULT_ENDPOINT = '/api/pricing';
/** The endpoint new-api's console sends for an OpenRouter channel (pricing read with the channel's key). */
export const OPENROUTER_ENDPOINT = 'openrouter';

/** new-api's official ratio preset, offered beside the channels (a ratio_config file on a public host). */
export const OFFICIAL_PRESET = { id: -100, name: '官方倍率预设', base_url: 'https://basellm.github.io' } as const;

export const upstream = z.object({
  id: z.number().int().optional(),
  name: z.string().max(200),
  base_url: z.string().max(2048),
  /** A path on base_url, a whole URL, or "openrouter"; default /api/pricing. */
  endpoint: z.string().max(2048).optional(),
});
export type Upstream = z.infer<typeof upstream>;

export const fetchBody = z.object({
  /** Channels whose base URL is fetched (used when `upstreams` is empty). */
  channel_ids: z.array(z.number().int()).max(MAX_UPSTREAMS).optional(),
  upstreams: z.array(upstream).max(MAX_UPSTREAMS).optional(),
  /** Seconds per upstream (default 10, at most 30). */
  timeout: z.number().optional(),
});
export type FetchBody = z.infer<typeof fetchBody>;

export const syncableChannel = z.object({
  id: z.number(),
  name: z.string(),
  base_url: z.string(),
  status: z.number(),
  type: z.number(),
});

const value = z.union([z.number(), z.literal('same'), z.null()]);
export const differenceItem = z.object({
  /** This gateway's value, null when it has none. */
  current: z.number().nullable(),
  /** Each upstream's value: a number that differs, "same", or null when it has none. */
  upstreams: z.record(z.string(), value),
  /** False where an upstream's /api/pricing shows new-api's placeholder price (ratio 37.5, completion 1). */
  confidence: z.record(z.string(), z.boolean()),
});
export type DifferenceItem = z.infer<typeof differenceItem>;

export const testResult = z.object({
  name: z.string(),
  status: z.enum(['success', 'error']),
  error: z.string().optional(),
});
export type TestResult = z.infer<typeof testResult>;

const fieldValues = z.record(z.string(), z.number());
export const fetchAnswer = z.object({
  /** model → field → difference. */
  differences: z.record(z.string(), z.record(z.string(), differenceItem)),
  /** model → this gateway's and each upstream's values of every field, for the models that differ. */
  prices: z.record(z.string(), z.object({ current: fieldValues, upstreams: z.record(z.string(), fieldValues) })),
  test_results: z.array(testResult),
});

export const ratioConfigAnswer = z.object({
  model_ratio: z.record(z.string(), z.number()),
  completion_ratio: z.record(z.string(), z.number()),
  cache_ratio: z.record(z.string(), z.number()),
  create_cache_ratio: z.record(z.string(), z.number()),
  model_price: z.record(z.string(), z.number()),
});
