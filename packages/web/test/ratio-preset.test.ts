import { describe, expect, it } from 'vitest';
import { rowFromMaps, type Canonical, type PricingMaps } from '../src/features/settings/pricing/model';
import { fillRows, presetDiff, rowValues, toFill } from '../src/features/settings/pricing/preset';

const maps: PricingMaps = {
  ModelPrice: { 'fixed-model': 0.05 },
  ModelRatio: { same: 1, old: 2 },
  CompletionRatio: { same: 3, old: 3, 'completion-only': 4 },
  CacheRatio: { old: 0.5 },
};
const rows = ['fixed-model', 'same', 'old', 'completion-only'].map((n) => rowFromMaps(maps, n, 'ratio'));
const current = (name: string): Canonical | undefined => {
  const r = rows.find((x) => x.name === name);
  return r && rowValues(r, 'ratio');
};
const preset = {
  model_ratio: { 'fixed-model': 9, same: 1, old: 2.5, 'completion-only': 0.75, fresh: 0.1 },
  completion_ratio: { same: 3, old: 4, fresh: 2 },
};

describe('preset ratio diff', () => {
  const diff = presetDiff(preset, current);
  it('counts added, changed, unchanged and fixed-price models', () => {
    expect(diff.count).toEqual({ added: 2, changed: 1, unchanged: 1, priced: 1 });
    expect(diff.changes.find((c) => c.name === 'old')).toMatchObject({
      kind: 'changed',
      old: { ratio: 2, completion: 3 },
      next: { ratio: 2.5, completion: 4 },
    });
    // A model with a completion ratio but no model ratio is missing: the preset adds its model ratio, keeps the completion.
    expect(diff.changes.find((c) => c.name === 'completion-only')).toMatchObject({
      kind: 'added',
      next: { ratio: 0.75, completion: 4 },
    });
  });
  it('fills only missing models, or added and changed ones', () => {
    expect(toFill(diff, 'missing').map((c) => c.name)).toEqual(['completion-only', 'fresh']);
    expect(toFill(diff, 'all').map((c) => c.name)).toEqual(['completion-only', 'fresh', 'old']);
  });
  it('stages the fill as dirty per-token rows, keeping the cache ratio and leaving fixed prices alone', () => {
    const next = fillRows(rows, toFill(diff, 'all'), 'ratio');
    expect(next.find((r) => r.name === 'fresh')).toMatchObject({
      mode: 'token',
      input: '0.1',
      output: '2',
      dirty: true,
      isNew: true,
    });
    expect(next.find((r) => r.name === 'old')).toMatchObject({ input: '2.5', output: '4', cache: '0.5', dirty: true });
    expect(next.find((r) => r.name === 'fixed-model')).toMatchObject({ mode: 'request', price: '0.05', dirty: false });
    expect(next.find((r) => r.name === 'same')!.dirty).toBe(false);
  });
  it('writes prices per 1M when the editor shows prices', () => {
    const priceRows = rows.map((r) => rowFromMaps(maps, r.name, 'price'));
    const next = fillRows(priceRows, toFill(diff, 'all'), 'price');
    // Ratio 2.5 is $5 / 1M input; completion 4 makes output $20 / 1M.
    expect(next.find((r) => r.name === 'old')).toMatchObject({ input: '5', output: '20' });
  });
});
