// The per-model differences between this gateway's prices and its upstreams', in new-api's shape.
import { PRICE_FIELDS, type DifferenceItem, type PriceData, type PriceField } from './schema.js';

/** Two prices closer than this are the same. */
const EPSILON = 1e-9;
/** new-api's /api/pricing shows a model without a price as ratio 37.5 and completion 1: not to be trusted. */
const PLACEHOLDER_RATIO = 37.5;
const PLACEHOLDER_COMPLETION = 1;

const same = (a: number, b: number) => Math.abs(a - b) < EPSILON;

/** An object keyed by names from outside (models, upstreams): no prototype, so `__proto__` is just a name. */
export const dict = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

export const emptyPrices = (): PriceData => ({
  model_ratio: dict(),
  completion_ratio: dict(),
  cache_ratio: dict(),
  model_price: dict(),
});

/**
 * The prices as billing reads them: a model with a fixed price is billed by it alone (its ratios are dropped), a
 * model with neither a price nor a ratio has no price (its other values are dropped), and negative or non-finite
 * values are not prices.
 */
export function effectivePrices(data: PriceData): PriceData {
  const out = emptyPrices();
  for (const field of PRICE_FIELDS)
    for (const [model, v] of Object.entries(data[field])) if (Number.isFinite(v) && v >= 0) out[field][model] = v;
  const models = new Set(PRICE_FIELDS.flatMap((f) => Object.keys(out[f])));
  for (const model of models) {
    const fixed = model in out.model_price;
    if (!fixed && !(model in out.model_ratio)) for (const f of PRICE_FIELDS) delete out[f][model];
    else if (fixed) for (const f of PRICE_FIELDS) if (f !== 'model_price') delete out[f][model];
  }
  return out;
}

export interface UpstreamPrices {
  name: string;
  data: PriceData;
  /** Models whose value may mean "no price" (a ratio of 0 in a pricing list). */
  unsure?: ReadonlySet<string>;
}

/** Per upstream and model: false where its ratios may be a placeholder for "no price" (not to be trusted). */
function confidenceOf(up: UpstreamPrices, model: string): boolean {
  if (up.unsure?.has(model)) return false;
  const ratio = up.data.model_ratio[model];
  const completion = up.data.completion_ratio[model];
  return !(
    ratio !== undefined &&
    completion !== undefined &&
    same(ratio, PLACEHOLDER_RATIO) &&
    same(completion, PLACEHOLDER_COMPLETION)
  );
}

/**
 * model → field → {current, upstreams, confidence} for every field where some upstream has a value this gateway
 * lacks or differs from. An upstream's value equal to ours reads "same", a missing one null (or "same" when ours is
 * missing too); upstreams that differ nowhere are left out, and so are fields where every upstream left reads "same".
 */
export function priceDifferences(
  local: PriceData,
  upstreams: UpstreamPrices[],
): Record<string, Partial<Record<PriceField, DifferenceItem>>> {
  const models = new Set<string>();
  for (const d of [local, ...upstreams.map((u) => u.data)])
    for (const f of PRICE_FIELDS) for (const m of Object.keys(d[f])) models.add(m);
  const out = dict<Partial<Record<PriceField, DifferenceItem>>>();
  const differing = new Set<string>();
  for (const model of [...models].sort()) {
    for (const field of PRICE_FIELDS) {
      const current = local[field][model] ?? null;
      const item: DifferenceItem = { current, upstreams: dict(), confidence: dict() };
      let include = false;
      for (const up of upstreams) {
        const theirs = up.data[field][model];
        let shown: number | 'same' | null;
        if (theirs === undefined) shown = current === null ? 'same' : null;
        else if (current !== null && same(current, theirs)) shown = 'same';
        else {
          shown = theirs;
          include = true;
        }
        item.upstreams[up.name] = shown;
        item.confidence[up.name] = confidenceOf(up, model);
        if (typeof shown === 'number') differing.add(up.name);
      }
      if (include) (out[model] ??= {})[field] = item;
    }
  }
  for (const [model, fields] of Object.entries(out)) {
    for (const [field, item] of Object.entries(fields) as [PriceField, DifferenceItem][]) {
      for (const name of Object.keys(item.upstreams))
        if (!differing.has(name)) {
          delete item.upstreams[name];
          delete item.confidence[name];
        }
      const values = Object.values(item.upstreams);
      if (values.length === 0 || values.every((v) => v === 'same')) delete fields[field];
    }
    if (Object.keys(fields).length === 0) delete out[model];
  }
  return out;
}

/** One model's values of every field that has one. */
export function modelPrices(data: PriceData, model: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of PRICE_FIELDS) if (data[f][model] !== undefined) out[f] = data[f][model]!;
  return out;
}
