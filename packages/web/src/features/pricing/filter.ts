import type { PricingModel } from './api';

/** A row's tags as a list: the comma-separated text split, trimmed, without empty or repeated ones. */
export const tagList = (tags: string | undefined): string[] => [
  ...new Set(
    (tags ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== ''),
  ),
];

export interface PricingFilter {
  /** Matched against the name, the registry description and the tags, ignoring case. */
  keyword: string;
  /** A vendor id of the answer; undefined: every vendor. */
  vendorId: number | undefined;
  /** With onlyAvailable, rows not served in this group are left out (no group yet: none are). */
  group: string;
  onlyAvailable: boolean;
}

/** The rows the pricing page shows for the toolbar's choices. */
export function filterPricing(models: PricingModel[], f: PricingFilter): PricingModel[] {
  const q = f.keyword.trim().toLowerCase();
  const matches = (m: PricingModel) =>
    q === '' ||
    m.model_name.toLowerCase().includes(q) ||
    (m.description ?? '').toLowerCase().includes(q) ||
    tagList(m.tags).some((t) => t.toLowerCase().includes(q));
  return models.filter(
    (m) =>
      matches(m) &&
      (f.vendorId === undefined || m.vendor_id === f.vendorId) &&
      (!f.onlyAvailable || !f.group || m.enable_groups.includes(f.group)),
  );
}
