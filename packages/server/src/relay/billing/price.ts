import { dec, DEFAULT_CACHE_CREATION_RATIO, mul, toNumber, UNSET_MODEL_RATIO, type Price } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';

export interface ResolvedPrice {
  price: Price;
  groupRatio: number;
  /** Set when the model had no ratio and the call is allowed anyway (self-use mode, accept-unset): UNSET_MODEL_RATIO. */
  unset: boolean;
  /** Priced by the fallback_* options. */
  fallback?: boolean;
}

/** A thinking-suffixed name (`-thinking`, `-nothinking`, `-thinking-<budget>`) → its base model name; else unchanged. */
export const thinkingBaseModel = (model: string): string => model.replace(/-(?:no)?thinking(?:-\d+)?$/, '') || model;

/** The name whose price applies: the model itself when priced, else its base model when that is priced (new-api's rule). */
function pricedName(o: OptionsService, model: string): string {
  const prices = o.json<Record<string, number>>('ModelPrice');
  const ratios = o.json<Record<string, number>>('ModelRatio');
  if (prices[model] !== undefined || ratios[model] !== undefined) return model;
  const base = thinkingBaseModel(model);
  return base !== model && (prices[base] !== undefined || ratios[base] !== undefined) ? base : model;
}

/**
 * The price of a model for a group from the pricing options: a fixed per-call price wins over ratios; a
 * thinking-suffixed model without a price of its own is billed as its base model.
 * Undefined when the model has neither and the caller may not use unpriced models.
 */
export function resolvePrice(
  o: OptionsService,
  requested: string,
  group: string,
  acceptUnset: boolean,
): ResolvedPrice | undefined {
  const model = pricedName(o, requested);
  const groupRatio = o.json<Record<string, number>>('GroupRatio')[group] ?? 1;
  const fixed = o.json<Record<string, number>>('ModelPrice')[model];
  if (fixed !== undefined) return { price: { mode: 'price', modelPrice: fixed, groupRatio }, groupRatio, unset: false };
  const ratio = o.json<Record<string, number>>('ModelRatio')[model];
  const completionRatio = o.json<Record<string, number>>('CompletionRatio')[model] ?? 1;
  const cacheRatio = o.json<Record<string, number>>('CacheRatio')[model] ?? 1;
  if (ratio !== undefined) {
    return {
      price: {
        mode: 'ratio',
        modelRatio: ratio,
        completionRatio,
        cacheRatio,
        cacheCreationRatio: DEFAULT_CACHE_CREATION_RATIO,
        groupRatio,
      },
      groupRatio,
      unset: false,
    };
  }
  // Fallback pricing for models with neither: one price per call, or an input ratio with a completion ratio.
  if (o.bool('fallback_pricing_enabled')) {
    const single = o.num('fallback_single_price');
    if (single > 0)
      return { price: { mode: 'price', modelPrice: single, groupRatio }, groupRatio, unset: false, fallback: true };
    const input = o.num('fallback_input_ratio');
    if (input > 0) {
      const fallbackCompletion = o.num('fallback_completion_ratio') || 1;
      return {
        price: {
          mode: 'ratio',
          modelRatio: input,
          completionRatio: fallbackCompletion,
          cacheRatio: 1,
          cacheCreationRatio: DEFAULT_CACHE_CREATION_RATIO,
          groupRatio,
        },
        groupRatio,
        unset: false,
        fallback: true,
      };
    }
  }
  if (!acceptUnset && !o.bool('SelfUseModeEnabled')) return undefined;
  // Issue 31 hole 6 (the unset-model rule): unpriced but allowed is billed at new-api's default ratio, never 0 —
  // the user's own setting accepts a high price, it does not make the call free. Recorded as ratio_unset.
  return {
    price: {
      mode: 'ratio',
      modelRatio: UNSET_MODEL_RATIO,
      completionRatio: 1,
      cacheRatio: 1,
      cacheCreationRatio: 1,
      groupRatio,
    },
    groupRatio,
    unset: true,
  };
}

/** A per-call price scaled to a number of billable units (exact decimal product); ratio prices are unchanged. */
export function scaledPrice(p: Price, units: number | undefined): Price {
  if (units === undefined || units === 1 || p.mode !== 'price') return p;
  return { ...p, modelPrice: toNumber(mul(dec(p.modelPrice), dec(units))) };
}
