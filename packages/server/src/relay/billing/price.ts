import {
  BILLING_MODE_EXPR,
  dec,
  DEFAULT_CACHE_CREATION_RATIO,
  exprPrice,
  mul,
  toNumber,
  UNSET_MODEL_RATIO,
  type ExprRequest,
  type Price,
} from '@tollway/shared';
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
 * The billing expression of a model whose billing mode is `tiered_expr` (its own, else its thinking base model's);
 * undefined when it has none or the saved text does not parse (an imported value: the ratio tables price it then).
 */
function exprPriceOf(o: OptionsService, model: string, groupRatio: number): Price | undefined {
  const modes = o.json<Record<string, string>>('billing_setting.billing_mode');
  const exprs = o.json<Record<string, string>>('billing_setting.billing_expr');
  for (const name of [model, thinkingBaseModel(model)]) {
    const text = exprs[name];
    if (modes[name] !== BILLING_MODE_EXPR || text === undefined) continue;
    try {
      return exprPrice(text, groupRatio, Date.now());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The call an expression price was given (forRequest), for a price of the same call resolved again. */
export const requestOf = (p: ResolvedPrice): ExprRequest | undefined =>
  p.price.mode === 'expr' ? p.price.request : undefined;

/** An expression price given the call it prices, for its `header()` and `param()` rules; other prices unchanged. */
export function forRequest<P extends ResolvedPrice | undefined>(p: P, request: ExprRequest | undefined): P {
  return p?.price.mode === 'expr' && request ? { ...p, price: { ...p.price, request } } : p;
}

/**
 * The price of a model for a group from the pricing options: a billing expression (billing mode `tiered_expr`)
 * wins over everything, then a fixed per-call price over ratios; a
 * thinking-suffixed model without a price of its own is billed as its base model.
 * Undefined when the model has neither and the caller may not use unpriced models.
 */
export function resolvePrice(
  o: OptionsService,
  requested: string,
  group: string,
  acceptUnset: boolean,
): ResolvedPrice | undefined {
  const groupRatio = o.json<Record<string, number>>('GroupRatio')[group] ?? 1;
  const expr = exprPriceOf(o, requested, groupRatio);
  if (expr) return { price: expr, groupRatio, unset: false };
  const model = pricedName(o, requested);
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
        // new-api's per-model cache-write ratio (CreateCacheRatio), else the usual 1.25.
        cacheCreationRatio: o.json<Record<string, number>>('CreateCacheRatio')[model] ?? DEFAULT_CACHE_CREATION_RATIO,
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
