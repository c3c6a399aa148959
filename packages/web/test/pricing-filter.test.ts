import { describe, expect, it } from 'vitest';
import type { PricingModel } from '../src/features/pricing/api';
import { filterPricing, tagList, type PricingFilter } from '../src/features/pricing/filter';

const row = (model_name: string, extra: Partial<PricingModel> = {}): PricingModel => ({
  model_name,
  quota_type: 0,
  model_ratio: 1,
  completion_ratio: 1,
  model_price: 0,
  enable_groups: ['default'],
  ...extra,
});
const models = [
  row('gpt-4o', { description: 'Flagship omni model', tags: 'chat, vision', vendor_id: 1 }),
  row('claude-3', { description: '', tags: 'chat,reasoning', vendor_id: 2 }),
  row('old-model'), // an older server: no registry fields
  row('vip-only', { vendor_id: 1, enable_groups: ['vip'] }),
];
const all: PricingFilter = { keyword: '', vendorId: undefined, group: 'default', onlyAvailable: false };
const names = (f: Partial<PricingFilter>) => filterPricing(models, { ...all, ...f }).map((m) => m.model_name);

describe('pricing page filter', () => {
  it('splits tags on commas, trimmed, without empty or repeated ones', () => {
    expect(tagList(' chat, vision ,,chat ,')).toEqual(['chat', 'vision']);
    expect(tagList('')).toEqual([]);
    expect(tagList(undefined)).toEqual([]);
  });

  it('searches the name, the description and the tags, ignoring case', () => {
    expect(names({ keyword: ' GPT ' })).toEqual(['gpt-4o']);
    expect(names({ keyword: 'OMNI' })).toEqual(['gpt-4o']);
    expect(names({ keyword: 'reason' })).toEqual(['claude-3']);
    expect(names({ keyword: 'chat' })).toEqual(['gpt-4o', 'claude-3']);
    expect(names({ keyword: 'nothing' })).toEqual([]);
  });

  it('keeps the chosen vendor only, and the rows of the group with onlyAvailable', () => {
    expect(names({ vendorId: 1 })).toEqual(['gpt-4o', 'vip-only']);
    expect(names({ vendorId: 1, onlyAvailable: true })).toEqual(['gpt-4o']);
    expect(names({ vendorId: 3 })).toEqual([]);
    expect(names({ onlyAvailable: true, group: 'vip' })).toEqual(['vip-only']);
    expect(names({ onlyAvailable: true, group: '' })).toEqual(['gpt-4o', 'claude-3', 'old-model', 'vip-only']);
  });
});
