import type { DataGranularity } from '@tollway/shared';
import dayjs from 'dayjs';
import type { DataRow } from './api';

export type Metric = 'quota' | 'tokens' | 'calls';

export interface Totals {
  quota: number;
  tokens: number;
  calls: number;
}

export interface ModelTotals extends Totals {
  model: string;
}

/** Hourly rows regrouped for the charts: buckets in time order, per-model series and totals. */
export interface Summary {
  /** Start (epoch seconds) and label of each bucket, oldest first. */
  buckets: { start: number; label: string }[];
  /** Models, most quota first. */
  models: ModelTotals[];
  /** Per model, one value per bucket. */
  series: Record<Metric, Map<string, number[]>>;
  totals: Totals;
}

/** Buckets filled in across an empty stretch of the range, up to this many (beyond it, only buckets with data). */
const MAX_FILLED_BUCKETS = 2000;

/** The start of the bucket holding `seconds`, in the browser's time zone (weeks start on Monday). */
export function bucketStart(seconds: number, g: DataGranularity): number {
  const d = dayjs.unix(seconds);
  if (g === 'hour') return d.startOf('hour').unix();
  const day = d.startOf('day');
  return (g === 'day' ? day : day.subtract((day.day() + 6) % 7, 'day')).unix();
}

function nextBucket(start: number, g: DataGranularity): number {
  const d = dayjs.unix(start);
  return (g === 'hour' ? d.add(1, 'hour') : g === 'day' ? d.add(1, 'day') : d.add(7, 'day')).unix();
}

export function bucketLabel(start: number, g: DataGranularity): string {
  const d = dayjs.unix(start);
  if (g === 'hour') return d.format('MM-DD HH:00');
  if (g === 'day') return d.format('MM-DD');
  return `${d.format('MM-DD')} ~ ${d.add(6, 'day').format('MM-DD')}`;
}

const valueOf = (r: DataRow, m: Metric): number => (m === 'quota' ? r.quota : m === 'tokens' ? r.token_used : r.count);

/** Groups hourly rows by granularity; the empty buckets between from and to (epoch seconds) are kept. */
export function summarize(rows: DataRow[], g: DataGranularity, from: number, to: number): Summary {
  const starts = new Set(rows.map((r) => bucketStart(r.created_at, g)));
  const last = bucketStart(to, g);
  for (let s = bucketStart(from, g), n = 0; s <= last && n < MAX_FILLED_BUCKETS; s = nextBucket(s, g), n++)
    starts.add(s);
  const ordered = [...starts].sort((a, b) => a - b);
  const index = new Map(ordered.map((s, i) => [s, i]));

  const byModel = new Map<string, ModelTotals>();
  const series: Summary['series'] = { quota: new Map(), tokens: new Map(), calls: new Map() };
  for (const r of rows) {
    const m = byModel.get(r.model_name) ?? { model: r.model_name, quota: 0, tokens: 0, calls: 0 };
    m.quota += r.quota;
    m.tokens += r.token_used;
    m.calls += r.count;
    byModel.set(r.model_name, m);
    const at = index.get(bucketStart(r.created_at, g))!;
    for (const metric of ['quota', 'tokens', 'calls'] as const) {
      let values = series[metric].get(r.model_name);
      if (!values) series[metric].set(r.model_name, (values = new Array<number>(ordered.length).fill(0)));
      values[at] = (values[at] ?? 0) + valueOf(r, metric);
    }
  }
  const models = [...byModel.values()].sort(
    (a, b) => b.quota - a.quota || b.calls - a.calls || a.model.localeCompare(b.model),
  );
  const totals = models.reduce(
    (t, m) => ({ quota: t.quota + m.quota, tokens: t.tokens + m.tokens, calls: t.calls + m.calls }),
    { quota: 0, tokens: 0, calls: 0 },
  );
  return { buckets: ordered.map((start) => ({ start, label: bucketLabel(start, g) })), models, series, totals };
}

/** Average calls and tokens per minute over [from, min(to, now)]. */
export function perMinute(totals: Totals, from: number, to: number, now: number): { rpm: number; tpm: number } {
  const minutes = Math.max(1, (Math.min(to, now) - from) / 60);
  return { rpm: totals.calls / minutes, tpm: totals.tokens / minutes };
}
