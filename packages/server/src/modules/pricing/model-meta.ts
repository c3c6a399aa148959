import { QuotaType } from '@tollway/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { channelsByModel, endpointTypesOf, isEnabledChannel, vendorOf, type Vendor } from './vendors.js';

/** What the model list reads: the price options and the routing table. */
export type ModelMetaDeps = Pick<AppContext, 'options' | 'channelCache'>;

/** Filters of new-api's model list: a keyword in the name, a vendor (id or name), a status (1 on, 0 off). */
export const modelMetaQuery = z.object({
  p: z.coerce.number().int().min(0).default(1),
  page_size: z.coerce.number().int().min(1).max(1000).default(10),
  keyword: z.string().max(200).optional(),
  vendor: z.string().max(100).optional(),
  status: z.string().max(10).optional(),
});
export type ModelMetaQuery = z.infer<typeof modelMetaQuery>;

/** One model as new-api's model list shows it, built from the channels that list it and the price tables. */
export interface ModelMeta {
  id: number;
  model_name: string;
  description: string;
  icon: string;
  tags: string;
  vendor_id: number;
  /** JSON text of the endpoint types (as new-api stores it). */
  endpoints: string;
  /** 1 when some enabled channel serves the model, else 0. */
  status: number;
  sync_official: number;
  created_time: number;
  updated_time: number;
  name_rule: number;
  bound_channels: { name: string; type: number }[];
  enable_groups: string[];
  quota_types: number[];
}

/** Every model some channel lists, by name (ids follow that order), and their vendors by id. */
export function allModelMeta(deps: ModelMetaDeps): { models: ModelMeta[]; vendors: Map<number, Vendor> } {
  const byModel = channelsByModel(deps.channelCache.all(), false);
  const prices = deps.options.json<Record<string, number>>('ModelPrice');
  const vendors = new Map<number, Vendor>();
  const names = [...byModel.keys()].sort();
  const models = names.map((model_name, i): ModelMeta => {
    const channels = byModel.get(model_name)!;
    const enabled = channels.filter(isEnabledChannel);
    const vendor = vendorOf(model_name, channels);
    if (vendor) vendors.set(vendor.id, vendor);
    return {
      id: i + 1,
      model_name,
      description: '',
      icon: vendor?.icon ?? '',
      tags: '',
      vendor_id: vendor?.id ?? 0,
      endpoints: JSON.stringify(endpointTypesOf(model_name, channels)),
      status: enabled.length > 0 ? 1 : 0,
      sync_official: 0,
      created_time: 0,
      updated_time: 0,
      name_rule: 0,
      bound_channels: enabled.map((c) => ({ name: c.name, type: c.type })),
      enable_groups: [...new Set(enabled.flatMap((c) => c.groups))].sort(),
      quota_types: [prices[model_name] !== undefined ? QuotaType.Price : QuotaType.Ratio],
    };
  });
  return { models, vendors };
}

/** A page of the model list with new-api's vendor counts (over every model, not the page). */
export function modelMetaPage(deps: ModelMetaDeps, q: ModelMetaQuery) {
  const { models: all, vendors } = allModelMeta(deps);
  const vendor_counts: Record<string, number> = {};
  for (const m of all) vendor_counts[m.vendor_id] = (vendor_counts[m.vendor_id] ?? 0) + 1;
  const keyword = q.keyword?.trim().toLowerCase();
  const vendor = q.vendor?.trim().toLowerCase();
  const matches = all.filter(
    (m) =>
      (!keyword || m.model_name.toLowerCase().includes(keyword)) &&
      (!vendor ||
        String(m.vendor_id) === vendor ||
        (vendors.get(m.vendor_id)?.name.toLowerCase().includes(vendor) ?? false)) &&
      (q.status === undefined || q.status === '' || String(m.status) === q.status),
  );
  const page = Math.max(1, q.p);
  const items = matches.slice((page - 1) * q.page_size, page * q.page_size);
  return { items, total: matches.length, page, page_size: q.page_size, vendor_counts };
}
