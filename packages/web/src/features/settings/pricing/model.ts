import { pricePerMillionToRatio, ratioToPricePerMillion, type OptionKey } from '@tollway/shared';
import type { OptionMap } from '../model/options';

/** The four pricing maps the visual editor reads and writes (options holding JSON maps of model name to value). */
export const MAP_KEYS = [
  'ModelPrice',
  'ModelRatio',
  'CompletionRatio',
  'CacheRatio',
] as const satisfies readonly OptionKey[];
export type MapKey = (typeof MAP_KEYS)[number];
export type NumMap = Record<string, number>;
export type PricingMaps = Record<MapKey, NumMap>;

/** Per-token (ratios) or per-request (fixed price). */
export type Mode = 'token' | 'request';
/** How per-token values are entered: as ratios, or as dollars per 1M tokens (ratio 1 = $2 / 1M). */
export type Unit = 'ratio' | 'price';

/** One row as the user edits it: texts in the current unit, so a half-typed or wrong value is kept as typed. */
export interface RatioRow {
  name: string;
  mode: Mode;
  /** Model ratio, or input price per 1M. */
  input: string;
  /** Completion ratio, or output price per 1M. */
  output: string;
  /** Cache ratio, or cached-input price per 1M. */
  cache: string;
  /** Fixed price per call (dollars). */
  price: string;
  /** Edited since the last save: only dirty rows are rewritten into the maps. */
  dirty: boolean;
  isNew?: boolean;
}

/** The values a row stands for, in ratio form. null = not set. */
export interface Canonical {
  price: number | null;
  ratio: number | null;
  completion: number | null;
  cache: number | null;
}

export type CellField = 'input' | 'output' | 'cache' | 'price';
export type CellIssue = 'number' | 'priceZero' | 'priceRequired';

/** Rounds away float noise (0.1 × 3 → 0.3) and prints without exponent where possible. */
export const fmt = (n: number | null | undefined): string =>
  n === null || n === undefined || !Number.isFinite(n) ? '' : String(Number(n.toPrecision(12)));

/** A short form for hints: six significant digits ($1.09999998 → $1.1). */
export const short = (n: number): string => (Number.isFinite(n) ? String(Number(n.toPrecision(6))) : '');

const NUMBER = /^\s*(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/** '' → null (not set); a non-negative number → it; anything else → undefined (invalid). */
export function parseCell(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

export function parseMap(text: string | undefined): NumMap {
  try {
    const v = JSON.parse(text ?? '{}') as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    const out: NumMap = {};
    for (const [k, n] of Object.entries(v as Record<string, unknown>)) if (typeof n === 'number') out[k] = n;
    return out;
  } catch {
    return {};
  }
}

export const mapsFromOptions = (options: OptionMap): PricingMaps => ({
  ModelPrice: parseMap(options.ModelPrice),
  ModelRatio: parseMap(options.ModelRatio),
  CompletionRatio: parseMap(options.CompletionRatio),
  CacheRatio: parseMap(options.CacheRatio),
});

export const canonicalFromMaps = (maps: PricingMaps, name: string): Canonical => ({
  price: maps.ModelPrice[name] ?? null,
  ratio: maps.ModelRatio[name] ?? null,
  completion: maps.CompletionRatio[name] ?? null,
  cache: maps.CacheRatio[name] ?? null,
});

/** The texts of a row for canonical values in a unit. Price form needs the input price to show the others. */
export function textsFor(c: Canonical, unit: Unit): Pick<RatioRow, 'input' | 'output' | 'cache' | 'price'> {
  if (unit === 'ratio')
    return { input: fmt(c.ratio), output: fmt(c.completion), cache: fmt(c.cache), price: fmt(c.price) };
  const inPrice = c.ratio === null ? null : ratioToPricePerMillion(c.ratio);
  return {
    input: fmt(inPrice),
    output: inPrice === null || c.completion === null ? '' : fmt(inPrice * c.completion),
    cache: inPrice === null || c.cache === null ? '' : fmt(inPrice * c.cache),
    price: fmt(c.price),
  };
}

export function rowFromMaps(maps: PricingMaps, name: string, unit: Unit): RatioRow {
  const c = canonicalFromMaps(maps, name);
  return { name, mode: c.price !== null ? 'request' : 'token', ...textsFor(c, unit), dirty: false };
}

/** Every model named in any of the four maps, sorted by name. */
export function rowsFromMaps(maps: PricingMaps, unit: Unit): RatioRow[] {
  const names = new Set<string>();
  for (const k of MAP_KEYS) for (const n of Object.keys(maps[k])) names.add(n);
  return [...names].sort((a, b) => a.localeCompare(b)).map((n) => rowFromMaps(maps, n, unit));
}

/** The problems of each cell of a row (per-token cells are checked only in per-token mode, and the price in per-request). */
export function rowIssues(row: RatioRow, unit: Unit): Partial<Record<CellField, CellIssue>> {
  const out: Partial<Record<CellField, CellIssue>> = {};
  if (row.mode === 'request') {
    const p = parseCell(row.price);
    if (p === undefined) out.price = 'number';
    else if (p === null && row.dirty) out.price = 'priceRequired';
    return out;
  }
  const input = parseCell(row.input);
  for (const f of ['input', 'output', 'cache'] as const) if (parseCell(row[f]) === undefined) out[f] = 'number';
  if (unit === 'price' && input !== undefined && !input) {
    for (const f of ['output', 'cache'] as const) if (!out[f] && parseCell(row[f]) !== null) out[f] = 'priceZero';
  }
  return out;
}

/** The canonical values of a row's texts, or null when a cell checked in the row's mode is wrong (see rowIssues). */
export function canonicalOf(row: RatioRow, unit: Unit): Canonical | null {
  const issues = rowIssues(row, unit);
  if (issues.input || issues.output || issues.cache || issues.price === 'number') return null;
  // Cells not checked in this mode count as "not set" when wrong.
  const val = (text: string) => parseCell(text) ?? null;
  const price = val(row.price);
  const input = val(row.input);
  const output = val(row.output);
  const cache = val(row.cache);
  if (unit === 'ratio') return { price, ratio: input, completion: output, cache };
  const rel = (v: number | null) => (v === null || !input ? null : Number((v / input).toPrecision(12)));
  return {
    price,
    ratio: input === null ? null : pricePerMillionToRatio(input),
    completion: rel(output),
    cache: rel(cache),
  };
}

function put(map: NumMap, name: string, v: number | null): void {
  if (v === null) delete map[name];
  else map[name] = v;
}

/**
 * The maps after the edits: untouched rows keep their entries; a dirty per-token row writes its ratios and clears its
 * fixed price; a dirty per-request row writes its price and clears both ratios; deleted models leave
 * every map. Returns null when some dirty row has a wrong cell.
 */
export function applyRows(
  orig: PricingMaps,
  rows: RatioRow[],
  deleted: Iterable<string>,
  unit: Unit,
): PricingMaps | null {
  const next: PricingMaps = {
    ModelPrice: { ...orig.ModelPrice },
    ModelRatio: { ...orig.ModelRatio },
    CompletionRatio: { ...orig.CompletionRatio },
    CacheRatio: { ...orig.CacheRatio },
  };
  for (const name of deleted) for (const k of MAP_KEYS) delete next[k][name];
  for (const row of rows) {
    if (!row.dirty) continue;
    if (Object.keys(rowIssues(row, unit)).length > 0) return null;
    const c = canonicalOf(row, unit);
    if (!c) return null;
    if (row.mode === 'request') {
      put(next.ModelPrice, row.name, c.price);
      delete next.ModelRatio[row.name];
      delete next.CompletionRatio[row.name];
    } else {
      delete next.ModelPrice[row.name];
      put(next.ModelRatio, row.name, c.ratio);
      put(next.CompletionRatio, row.name, c.completion);
      put(next.CacheRatio, row.name, c.cache);
    }
  }
  return next;
}

/** The maps whose content changed, as option changes (pretty JSON, as the JSON editors save them). */
export function changedMaps(orig: PricingMaps, next: PricingMaps): { key: MapKey; value: string }[] {
  return MAP_KEYS.filter((k) => JSON.stringify(orig[k]) !== JSON.stringify(next[k])).map((k) => ({
    key: k,
    value: JSON.stringify(next[k], null, 2),
  }));
}

/** Batch set: the model ratio only, both ratios, or a fixed price. Values are in ratio form. */
export type BatchType = 'ratio' | 'both' | 'price';
export interface BatchValues {
  type: BatchType;
  ratio: number | null;
  completion: number | null;
  price: number | null;
}

/** A row after a batch set, texts re-derived in the current unit. */
export function batchRow(row: RatioRow, v: BatchValues, unit: Unit): RatioRow {
  if (v.type === 'price') return { ...row, mode: 'request', price: fmt(v.price), dirty: true };
  const c = canonicalOf({ ...row, mode: 'token' }, unit) ?? { price: null, ratio: null, completion: null, cache: null };
  const next: Canonical = { ...c, ratio: v.ratio, completion: v.type === 'both' ? v.completion : c.completion };
  return { ...row, mode: 'token', ...textsFor(next, unit), price: row.price, dirty: true };
}

/** Batch values applied straight to maps (the unset-models tab saves at once). */
export function batchMaps(orig: PricingMaps, names: string[], v: BatchValues): PricingMaps {
  const next: PricingMaps = {
    ModelPrice: { ...orig.ModelPrice },
    ModelRatio: { ...orig.ModelRatio },
    CompletionRatio: { ...orig.CompletionRatio },
    CacheRatio: { ...orig.CacheRatio },
  };
  for (const n of names) {
    if (v.type === 'price') {
      put(next.ModelPrice, n, v.price);
      delete next.ModelRatio[n];
      delete next.CompletionRatio[n];
    } else {
      delete next.ModelPrice[n];
      put(next.ModelRatio, n, v.ratio);
      if (v.type === 'both') put(next.CompletionRatio, n, v.completion);
    }
  }
  return next;
}

/** Converts every row to another unit; null when a dirty row has a wrong cell (nothing converted then). */
export function convertRows(rows: RatioRow[], orig: PricingMaps, from: Unit, to: Unit): RatioRow[] | null {
  const out: RatioRow[] = [];
  for (const r of rows) {
    if (!r.dirty) {
      out.push({ ...rowFromMaps(orig, r.name, to), mode: r.mode });
      continue;
    }
    const c = canonicalOf(r, from);
    if (!c) return null;
    out.push({ ...r, ...textsFor(c, to), price: r.price });
  }
  return out;
}
