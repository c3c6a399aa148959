import { add, dec, isNegative, isZero, mul, roundToInt, sub, type Dec } from './decimal.js';

/** Token counts of one call, as the upstream reported them (or as counted). */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the provider's cache. */
  cachedTokens?: number;
  /** Prompt tokens written to the provider's cache. */
  cacheCreationTokens?: number;
}

/**
 * How prompt tokens relate to cache tokens: OpenAI-style usage counts cached tokens inside prompt_tokens,
 * Anthropic-style usage counts them outside input_tokens.
 */
export type UsageSemantic = 'openai' | 'anthropic';

export interface RatioPrice {
  mode: 'ratio';
  modelRatio: number;
  completionRatio: number;
  cacheRatio: number;
  cacheCreationRatio: number;
  groupRatio: number;
}

export interface FixedPrice {
  mode: 'price';
  /** Dollars per call. */
  modelPrice: number;
  groupRatio: number;
}

export type Price = RatioPrice | FixedPrice;

/**
 * Quota of one call, exact (decimal, no float error), rounded half away from zero.
 * Ratio mode: (uncached prompt + cached × cache ratio + cache writes × cache-creation ratio
 *   + completion × completion ratio) × model ratio × group ratio, at least 1 when the ratio is non-zero.
 * Fixed price: model price × quota per unit × group ratio.
 */
export function computeQuota(
  price: Price,
  usage: Usage,
  quotaPerUnit: number,
  semantic: UsageSemantic = 'openai',
): number {
  if (price.mode === 'price') {
    return Number(roundToInt(mul(mul(dec(price.modelPrice), dec(quotaPerUnit)), dec(price.groupRatio))));
  }
  const ratio = mul(dec(price.modelRatio), dec(price.groupRatio));
  const cached = dec(usage.cachedTokens ?? 0);
  const creation = dec(usage.cacheCreationTokens ?? 0);
  let base: Dec = dec(usage.promptTokens);
  if (semantic === 'openai') base = sub(sub(base, cached), creation);
  if (isNegative(base)) base = dec(0);
  const prompt = add(add(base, mul(cached, dec(price.cacheRatio))), mul(creation, dec(price.cacheCreationRatio)));
  const completion = mul(dec(usage.completionTokens), dec(price.completionRatio));
  const total = mul(add(prompt, completion), ratio);
  const quota = Number(roundToInt(total));
  return !isZero(ratio) && quota <= 0 ? 1 : quota;
}

/** Dollar price per million tokens for a model ratio (ratio 1 = $2 per 1M tokens). */
export const ratioToPricePerMillion = (ratio: number): number => Number((ratio * 2).toPrecision(12));
export const pricePerMillionToRatio = (price: number): number => Number((price / 2).toPrecision(12));
