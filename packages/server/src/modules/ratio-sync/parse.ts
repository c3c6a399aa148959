// Reads an upstream's prices from its answer: new-api's /api/ratio_config (maps per field) or /api/pricing (rows).
import { MAX_MODEL_NAME, MAX_MODELS_PER_UPSTREAM, PRICE_FIELDS, type PriceData } from './schema.js';
import { emptyPrices } from './diff.js';

/** An answer that holds no prices we can read; the message is shown to root beside the upstream's name. */
export class UnreadableAnswer extends Error {}

/** new-api's billing mode of a model priced by an expression, which this gateway cannot represent. */
const TIERED_EXPRESSION = 'tiered_expr';
/** new-api's quota_type of a fixed-price row. */
const QUOTA_TYPE_PRICE = 1;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const price = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
const usableName = (name: string) => name.length > 0 && name.length <= MAX_MODEL_NAME;

/** Models priced by an expression (billing_mode tiered_expr), left out of every field. */
function expressionPriced(data: Json): Set<string> {
  const modes = data.billing_mode;
  const out = new Set<string>();
  if (isObject(modes)) for (const [m, mode] of Object.entries(modes)) if (mode === TIERED_EXPRESSION) out.add(m);
  return out;
}

/** The /api/ratio_config shape: field → model → number. */
function fromRatioConfig(data: Json): PriceData {
  const out = emptyPrices();
  const skip = expressionPriced(data);
  const seen = new Set<string>();
  for (const field of PRICE_FIELDS) {
    const map = data[field];
    if (!isObject(map)) continue;
    for (const [model, raw] of Object.entries(map)) {
      const v = price(raw);
      if (v === undefined || skip.has(model) || !usableName(model)) continue;
      if (!seen.has(model) && seen.size >= MAX_MODELS_PER_UPSTREAM) continue;
      seen.add(model);
      out[field][model] = v;
    }
  }
  return out;
}

/** An upstream's prices, and the models whose ratio cannot be told from "no price" (see fromPricingRows). */
export interface UpstreamAnswer {
  data: PriceData;
  unsure: string[];
}

/**
 * The /api/pricing shape: one row per model with its quota_type and values. A ratio row of 0 is unsure: a Tollway
 * lists a model without a price that way (new-api's placeholder, ratio 37.5 and completion 1, is told apart later).
 */
function fromPricingRows(rows: unknown[]): UpstreamAnswer {
  const out = emptyPrices();
  const unsure: string[] = [];
  for (const row of rows.slice(0, MAX_MODELS_PER_UPSTREAM)) {
    if (!isObject(row) || typeof row.model_name !== 'string' || !usableName(row.model_name)) continue;
    if (row.billing_mode === TIERED_EXPRESSION) continue;
    const model = row.model_name;
    const set = (field: keyof PriceData, raw: unknown) => {
      const v = price(raw);
      if (v !== undefined) out[field][model] = v;
    };
    if (row.quota_type === QUOTA_TYPE_PRICE) set('model_price', row.model_price);
    else {
      set('model_ratio', row.model_ratio);
      set('completion_ratio', row.completion_ratio);
      if (out.model_ratio[model] === 0) unsure.push(model);
    }
    set('cache_ratio', row.cache_ratio);
  }
  return { data: out, unsure };
}

/** The prices in an answer's text: `{success, data}` with data in either shape. */
export function parsePriceAnswer(text: string): UpstreamAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UnreadableAnswer('the answer is not JSON');
  }
  if (!isObject(body)) throw new UnreadableAnswer('the answer is not a JSON object');
  if (body.success !== true) {
    const said = typeof body.message === 'string' ? body.message.slice(0, MAX_MODEL_NAME) : '';
    throw new UnreadableAnswer(said ? `the upstream refused: ${said}` : 'the upstream answered success:false');
  }
  const data = body.data;
  if (isObject(data) && PRICE_FIELDS.some((f) => f in data)) return { data: fromRatioConfig(data), unsure: [] };
  if (Array.isArray(data)) return fromPricingRows(data);
  throw new UnreadableAnswer('the answer holds neither a ratio configuration nor a pricing list');
}
