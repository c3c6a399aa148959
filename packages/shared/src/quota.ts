/** 500000 quota units are one US dollar. */
export const DEFAULT_QUOTA_PER_UNIT = 500000;

/** Abbreviates large numbers: k from ten thousand, then M, then B. */
export function abbreviateNumber(n: number): string {
  const abs = Math.abs(n);
  const trim = (v: number) => String(Number(v.toFixed(2)));
  if (abs >= 1e9) return `${trim(n / 1e9)}B`;
  if (abs >= 1e6) return `${trim(n / 1e6)}M`;
  if (abs >= 1e4) return `${trim(n / 1e3)}k`;
  return String(n);
}

/** Renders a quota amount as currency or raw units depending on the display setting. */
export function renderQuota(
  quota: number,
  opts: { displayInCurrency: boolean; quotaPerUnit?: number; digits?: number },
): string {
  const perUnit = opts.quotaPerUnit && opts.quotaPerUnit > 0 ? opts.quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
  if (opts.displayInCurrency) {
    const value = quota / perUnit;
    return `$${value.toFixed(opts.digits ?? 2)}`;
  }
  return abbreviateNumber(quota);
}

/**
 * The largest balance, token limit or quota amount Tollway holds (2^53 − 1): every balance and every sum of
 * them stays an exact JavaScript integer. Every path that raises a balance refuses to pass it (the SQL
 * statements check it atomically); imports refuse rows beyond it.
 */
export const QUOTA_MAX = Number.MAX_SAFE_INTEGER;

/**
 * The currency a cost is shown in to API callers (the cost receipt): its code and how many of it one US dollar
 * buys. Follows the console's display type: USD; CNY at USDExchangeRate; a custom currency at its own rate; TOKENS
 * (quota shown raw) still gives the dollar amount next to the quota.
 */
export interface CostCurrency {
  code: string;
  perUsd: number;
}

/** Decimal places of a shown cost: below a millionth of a quota unit's worth, nothing is lost at 500000 per dollar. */
const COST_DECIMALS = 10;

export const USD_COST: CostCurrency = { code: 'USD', perUsd: 1 };

/** The caller-facing currency for the display type /api/status reports (quotaDisplayType) and its rates. */
export function costCurrency(
  displayType: string,
  usdExchangeRate: number,
  customSymbol: string,
  customRate: number,
): CostCurrency {
  if (displayType === 'CNY') return { code: 'CNY', perUsd: usdExchangeRate };
  // A header carries visible ASCII only: any other symbol (¤, ₽) is percent-encoded.
  if (displayType === 'CUSTOM')
    return {
      code: /^[\x21-\x7e]+$/.test(customSymbol) ? customSymbol : encodeURIComponent(customSymbol) || 'CUSTOM',
      perUsd: customRate,
    };
  return USD_COST;
}

/** A quota amount in US dollars (OpenRouter's `usage.cost`): quota / QuotaPerUnit, rounded to COST_DECIMALS places. */
export function quotaToUsd(quota: number, quotaPerUnit: number): number {
  const perUnit = quotaPerUnit > 0 ? quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
  return Number((quota / perUnit).toFixed(COST_DECIMALS));
}

const DIGIT_ZERO = 0x30;
const DECIMAL_POINT = 0x2e;

/** A quota amount in a currency, as `<amount> <code>` (e.g. `0.000246 USD`): no exponent, no trailing zeros. */
export function formatCost(quota: number, quotaPerUnit: number, currency: CostCurrency): string {
  const perUnit = quotaPerUnit > 0 ? quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
  const fixed = ((quota / perUnit) * currency.perUsd).toFixed(COST_DECIMALS);
  // Trailing zeros of the fraction, then a bare point, dropped (a scan: this runs on every relay call's receipt).
  let end = fixed.length;
  if (fixed.includes('.')) {
    while (fixed.charCodeAt(end - 1) === DIGIT_ZERO) end--;
    if (fixed.charCodeAt(end - 1) === DECIMAL_POINT) end--;
  }
  return `${fixed.slice(0, end)} ${currency.code}`;
}
