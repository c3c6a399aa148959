import { abbreviateNumber, DEFAULT_QUOTA_PER_UNIT, QuotaType } from '@tollway/shared';

/** Group ratio colour bands — above 5 red, above 3 orange, above 1 blue, otherwise green. */
export function groupRatioColor(ratio: number): 'red' | 'orange' | 'blue' | 'green' {
  if (ratio > 5) return 'red';
  if (ratio > 3) return 'orange';
  if (ratio > 1) return 'blue';
  return 'green';
}

/** Up to `digits` decimals without trailing zeros (0.000150 → 0.00015). */
export function trimNumber(n: number, digits = 6): string {
  if (!Number.isFinite(n)) return '0';
  return String(Number(n.toFixed(digits)));
}

export const usd = (n: number) => `$${trimNumber(n, n !== 0 && Math.abs(n) < 0.01 ? 6 : 4)}`;

export type PriceUnit = 'usd' | 'quota';

/**
 * Prices of one model in one group: per 1M tokens the input price is model_ratio × 2 × group ratio
 * dollars and the output price that times completion_ratio; in quota, 1M tokens cost ratio × group ratio × 1M.
 * A fixed-price model costs model_price × group ratio dollars (× quota_per_unit in quota) per call.
 */
export function modelPrices(
  row: { quota_type: number; model_ratio: number; completion_ratio: number; model_price: number },
  groupRatio: number,
  unit: PriceUnit,
  quotaPerUnit = DEFAULT_QUOTA_PER_UNIT,
): { input: string; output: string } | { perCall: string } {
  if (row.quota_type === QuotaType.Price) {
    const dollars = row.model_price * groupRatio;
    return {
      perCall:
        unit === 'usd'
          ? usd(dollars)
          : abbreviateNumber(Math.round(dollars * (quotaPerUnit || DEFAULT_QUOTA_PER_UNIT))),
    };
  }
  if (unit === 'usd') {
    const input = row.model_ratio * 2 * groupRatio;
    return { input: usd(input), output: usd(input * row.completion_ratio) };
  }
  const input = row.model_ratio * groupRatio * 1_000_000;
  return {
    input: abbreviateNumber(Math.round(input)),
    output: abbreviateNumber(Math.round(input * row.completion_ratio)),
  };
}
