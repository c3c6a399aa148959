import { DEFAULT_QUOTA_PER_UNIT, parseLogOther, type LogOther } from '@tollway/shared';
import { trimNumber } from '../../lib/price';
import type { LogRow } from './api';

/** The JSON kept in a log's `other`, parsed leniently ({} when empty or not a JSON object); its schema is shared with the relay. */
export type { LogOther };
export const parseOther = parseLogOther;

type Band = 'green' | 'orange' | 'red';

/** Total time under 101 s green, under 300 s orange, else red. */
export const callTimeColor = (seconds: number): Band => (seconds < 101 ? 'green' : seconds < 300 ? 'orange' : 'red');

/** First response under 3 s green, under 10 s orange, else red (frt is in milliseconds). */
export const frtColor = (ms: number): Band => (ms < 3000 ? 'green' : ms < 10000 ? 'orange' : 'red');

export const formatFrt = (ms: number) => `${trimNumber(ms / 1000, ms < 10000 ? 2 : 1)} s`;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** True when the row was billed by a fixed price per call. */
export const isFixedPrice = (o: LogOther) => (num(o.model_price) ?? -1) > 0;

/**
 * The cost as text, with the logged quota after the arrow:
 * ratio mode "(12 + 5 × 4) × 0.075 × 1 = 2.4 → 2" — (uncached prompt [+ cached × cache ratio]
 * [+ cache writes × their ratio] + completion × completion ratio) × model ratio × group ratio;
 * fixed price "$0.04 × 500000 × 1 = 20000 → 20000". Undefined when the row has no ratios.
 */
export function costFormula(
  row: Pick<LogRow, 'prompt_tokens' | 'completion_tokens' | 'quota'>,
  o: LogOther,
  quotaPerUnit = DEFAULT_QUOTA_PER_UNIT,
): string | undefined {
  const group = num(o.group_ratio) ?? 1;
  if (isFixedPrice(o)) {
    const price = num(o.model_price)!;
    const perUnit = quotaPerUnit > 0 ? quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
    return `$${trimNumber(price)} × ${perUnit} × ${trimNumber(group)} = ${trimNumber(price * perUnit * group)} → ${row.quota}`;
  }
  const modelRatio = num(o.model_ratio);
  if (modelRatio === undefined) return undefined;
  const completionRatio = num(o.completion_ratio) ?? 1;
  const cached = num(o.cache_tokens) ?? 0;
  const written = num(o.cache_creation_tokens) ?? 0;
  const terms: string[] = [];
  let promptUnits: number;
  if (cached > 0 || written > 0) {
    const uncached = Math.max(0, row.prompt_tokens - cached - written);
    const cacheRatio = num(o.cache_ratio) ?? 1;
    const writeRatio = num(o.cache_creation_ratio) ?? 1;
    terms.push(String(uncached));
    if (cached > 0) terms.push(`${cached} × ${trimNumber(cacheRatio)}`);
    if (written > 0) terms.push(`${written} × ${trimNumber(writeRatio)}`);
    promptUnits = uncached + cached * cacheRatio + written * writeRatio;
  } else {
    terms.push(String(row.prompt_tokens));
    promptUnits = row.prompt_tokens;
  }
  terms.push(`${row.completion_tokens} × ${trimNumber(completionRatio)}`);
  const exact = (promptUnits + row.completion_tokens * completionRatio) * modelRatio * group;
  return `(${terms.join(' + ')}) × ${trimNumber(modelRatio)} × ${trimNumber(group)} = ${trimNumber(exact)} → ${row.quota}`;
}
