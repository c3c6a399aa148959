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
