import { canonicalOf, textsFor, type Canonical, type NumMap, type RatioRow, type Unit } from './model';

/** The preset sources the server fetches (GET /api/ratio_preset/:source); legacy has completion ratios only. */
export const PRESET_SOURCES = ['flexible', 'openrouter', 'mixed', 'legacy'] as const;
export type PresetSource = (typeof PRESET_SOURCES)[number];

/** A preset as the server answers it. */
export interface PresetRatios {
  source: PresetSource;
  model_ratio: NumMap;
  completion_ratio: NumMap;
  fetched_at: number;
}

/** How a preset model compares with the editor: new ratios, different ones, the same, or kept for its fixed price. */
export type PresetChangeKind = 'added' | 'changed' | 'unchanged' | 'priced';

export interface PresetChange {
  name: string;
  kind: PresetChangeKind;
  old: { ratio: number | null; completion: number | null };
  next: { ratio: number | null; completion: number | null };
}

export interface PresetDiff {
  changes: PresetChange[];
  count: Record<PresetChangeKind, number>;
}

const NONE: Canonical = { price: null, ratio: null, completion: null, cache: null };

/**
 * Compares a preset with the editor's values (`current`: a model's values, or undefined when the editor has no
 * row for it). A model with a fixed price keeps it; one without a model ratio is "added"; the preset's ratios
 * replace the model and completion ratios it names, other values stay.
 */
export function presetDiff(
  preset: Pick<PresetRatios, 'model_ratio' | 'completion_ratio'>,
  current: (name: string) => Canonical | undefined,
): PresetDiff {
  const names = [...new Set([...Object.keys(preset.model_ratio), ...Object.keys(preset.completion_ratio)])].sort(
    (a, b) => a.localeCompare(b),
  );
  const count: Record<PresetChangeKind, number> = { added: 0, changed: 0, unchanged: 0, priced: 0 };
  const changes = names.map((name): PresetChange => {
    const cur = current(name) ?? NONE;
    const old = { ratio: cur.ratio, completion: cur.completion };
    const next = {
      ratio: preset.model_ratio[name] ?? cur.ratio,
      completion: preset.completion_ratio[name] ?? cur.completion,
    };
    const kind: PresetChangeKind =
      cur.price !== null
        ? 'priced'
        : next.ratio === old.ratio && next.completion === old.completion
          ? 'unchanged'
          : old.ratio === null
            ? 'added'
            : 'changed';
    count[kind]++;
    return { name, kind, old, next };
  });
  return { changes, count };
}

/** What a fill writes: every added and changed model, or only the added ones (models with no model ratio yet). */
export type FillMode = 'all' | 'missing';

export const toFill = (diff: PresetDiff, mode: FillMode): PresetChange[] =>
  diff.changes.filter((c) => c.kind === 'added' || (mode === 'all' && c.kind === 'changed'));

/** The editor rows after a fill: filled models become per-token rows with the preset's ratios (staged, dirty). */
export function fillRows(rows: RatioRow[], fills: PresetChange[], unit: Unit): RatioRow[] {
  const byName = new Map(fills.map((c) => [c.name, c]));
  const out = rows.map((r): RatioRow => {
    const c = byName.get(r.name);
    if (!c) return r;
    byName.delete(r.name);
    const cur = canonicalOf({ ...r, mode: 'token' }, unit) ?? NONE;
    return {
      ...r,
      mode: 'token',
      ...textsFor({ ...cur, price: null, ratio: c.next.ratio, completion: c.next.completion }, unit),
      price: '',
      dirty: true,
    };
  });
  const added = [...byName.values()].map((c): RatioRow => ({
    name: c.name,
    mode: 'token',
    ...textsFor({ ...NONE, ratio: c.next.ratio, completion: c.next.completion }, unit),
    dirty: true,
    isNew: true,
  }));
  return [...added, ...out];
}

/** A row's values as the preset diff compares them (a per-token row has no fixed price). */
export function rowValues(row: RatioRow, unit: Unit): Canonical | undefined {
  const c = canonicalOf(row, unit);
  if (!c) return undefined;
  return row.mode === 'token' ? { ...c, price: null } : c;
}
