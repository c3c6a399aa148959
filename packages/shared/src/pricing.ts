import {
  cachedBillingExpr,
  runBillingExpr,
  type BillingExprVar,
  type CompiledBillingExpr,
} from './billing-expr/compile.js';
import type { ExprRequest } from './billing-expr/evaluate.js';
import { add, dec, isNegative, isZero, mul, roundToInt, sub, type Dec } from './decimal.js';
import { smallAdd, smallDec, smallMul, smallRound, type SmallDec } from './decimal-small.js';

/** Token counts of one call, as the upstream reported them (or as counted). */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the provider's cache. */
  cachedTokens?: number;
  /** Prompt tokens written to the provider's cache. */
  cacheCreationTokens?: number;
  /** Tokens of particular kinds the provider reported inside the counts above (expressions may price them). */
  kinds?: TokenKinds;
}

/**
 * Parts of a call's counts a provider reports by kind, each already inside the prompt, cache-write or completion
 * count: cache writes kept for 1 hour (Anthropic), image and audio input, image and audio output.
 */
export interface TokenKinds {
  cacheWrite1h?: number;
  imageIn?: number;
  audioIn?: number;
  imageOut?: number;
  audioOut?: number;
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

/** new-api's `tiered_expr` billing mode: the model's price is an expression (billing_setting.billing_expr). */
export interface ExprPrice {
  mode: 'expr';
  expr: CompiledBillingExpr;
  groupRatio: number;
  /** The call's headers and body, for `header()` and `param()` rules (absent: none match). */
  request?: ExprRequest;
  /** When the call started (ms since the epoch): time-of-day rules read it, so a call is priced by one clock. */
  at: number;
}

export type Price = RatioPrice | FixedPrice | ExprPrice;

/** The billing mode new-api names an expression-priced model with (billing_setting.billing_mode). */
export const BILLING_MODE_EXPR = 'tiered_expr';

/** An expression price for a saved expression text (parsed once per text). */
export function exprPrice(text: string, groupRatio: number, at: number, request?: ExprRequest): ExprPrice {
  return { mode: 'expr', expr: cachedBillingExpr(text), groupRatio, at, request };
}

/**
 * The token variables of an expression for a call's usage. `len` is the whole input (tiers read it); `p` is the
 * input not priced on its own: cache reads (`cr`) and writes (`cc`) are taken out of it only when the expression
 * prices them, and otherwise counted in it at `p`'s price, whichever way the upstream reports them (new-api leaves
 * an Anthropic-style call's cache tokens unpriced when the expression does not name them; Tollway bills them).
 * Likewise 1-hour cache writes (`cc1h`, out of `cc`), image and audio input (`img`, `ai`, out of `p`) and image and
 * audio output (`img_o`, `ao`, out of `c`) are priced apart only when the expression names them.
 */
export function exprTokenVars(e: CompiledBillingExpr, usage: Usage, semantic: UsageSemantic): Record<string, number> {
  const cached = usage.cachedTokens ?? 0;
  const creation = usage.cacheCreationTokens ?? 0;
  const k = usage.kinds ?? {};
  const uses = (v: BillingExprVar, n: number | undefined) => (e.uses.has(v) ? Math.max(0, n ?? 0) : 0);
  // A part of a count the expression prices on its own leaves the count it sits in (new-api's rule).
  const cc1h = Math.min(creation, uses('cc1h', k.cacheWrite1h));
  const cc = creation - cc1h;
  const len = semantic === 'openai' ? usage.promptTokens : usage.promptTokens + cached + creation;
  const img = uses('img', k.imageIn);
  const ai = uses('ai', k.audioIn);
  const own = (e.uses.has('cr') ? cached : 0) + (e.uses.has('cc') ? cc : 0) + cc1h + img + ai;
  const imgOut = uses('img_o', k.imageOut);
  const ao = uses('ao', k.audioOut);
  return {
    p: Math.max(0, len - own),
    c: Math.max(0, usage.completionTokens - imgOut - ao),
    len,
    cr: cached,
    cc,
    cc1h,
    img,
    img_o: imgOut,
    ai,
    ao,
  };
}

/** Dollars per million tokens: an expression's cost is divided by 10^6. */
const PER_MILLION_SCALE = 6;

/**
 * Quota of an expression-priced call, exact: cost ($ per 1M tokens × tokens) ÷ 10^6 × quota per unit × group
 * ratio, rounded half away from zero, at least 1 when the cost and the group ratio are above 0. The tier the
 * expression named (tier()) comes with it. Throws BillingExprError when the expression fails for this call.
 */
export function exprQuota(
  price: ExprPrice,
  usage: Usage,
  quotaPerUnit: number,
  semantic: UsageSemantic = 'openai',
): { quota: number; tier: string | undefined } {
  const { cost, tier } = runBillingExpr(
    price.expr,
    exprTokenVars(price.expr, usage, semantic),
    price.request,
    price.at,
  );
  const scaled = mul(mul(cost, dec(quotaPerUnit)), dec(price.groupRatio));
  const quota = Number(roundToInt({ m: scaled.m, s: scaled.s + PER_MILLION_SCALE }));
  return { quota: quota <= 0 && !isZero(scaled) ? 1 : quota, tier };
}

/**
 * Quota of one call, exact (decimal, no float error), rounded half away from zero.
 * Ratio mode: (uncached prompt + cached × cache ratio + cache writes × cache-creation ratio
 *   + completion × completion ratio) × model ratio × group ratio, at least 1 when the ratio is non-zero.
 * Fixed price: model price × quota per unit × group ratio. Expression: see exprQuota.
 */
export function computeQuota(
  price: Price,
  usage: Usage,
  quotaPerUnit: number,
  semantic: UsageSemantic = 'openai',
): number {
  if (price.mode === 'expr') return exprQuota(price, usage, quotaPerUnit, semantic).quota;
  return smallQuota(price, usage, quotaPerUnit, semantic) ?? bigQuota(price, usage, quotaPerUnit, semantic);
}

const negated = (d: SmallDec | undefined): SmallDec | undefined => d && { m: -d.m, s: d.s };

/** computeQuota on Number mantissas (decimal-small.ts); undefined where a step leaves their exact range. */
function smallQuota(
  price: RatioPrice | FixedPrice,
  usage: Usage,
  quotaPerUnit: number,
  semantic: UsageSemantic,
): number | undefined {
  if (price.mode === 'price') {
    const total = smallMul(smallMul(smallDec(price.modelPrice), smallDec(quotaPerUnit)), smallDec(price.groupRatio));
    return total && smallRound(total);
  }
  const ratio = smallMul(smallDec(price.modelRatio), smallDec(price.groupRatio));
  const cached = smallDec(usage.cachedTokens ?? 0);
  const creation = smallDec(usage.cacheCreationTokens ?? 0);
  let base = smallDec(usage.promptTokens);
  if (semantic === 'openai') base = smallAdd(smallAdd(base, negated(cached)), negated(creation));
  if (base && base.m < 0) base = { m: 0, s: 0 };
  const prompt = smallAdd(
    smallAdd(base, smallMul(cached, smallDec(price.cacheRatio))),
    smallMul(creation, smallDec(price.cacheCreationRatio)),
  );
  const completion = smallMul(smallDec(usage.completionTokens), smallDec(price.completionRatio));
  const total = smallMul(smallAdd(prompt, completion), ratio);
  if (!total || !ratio) return undefined;
  const quota = smallRound(total);
  return ratio.m !== 0 && quota <= 0 ? 1 : quota;
}

/** computeQuota with BigInt mantissas: any size (the path past smallQuota's range). */
export function bigQuota(
  price: RatioPrice | FixedPrice,
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
