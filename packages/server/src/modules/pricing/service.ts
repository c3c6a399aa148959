import {
  BILLING_MODE_EXPR,
  DEFAULT_GROUP,
  defaultCacheRatio,
  defaultCompletionRatio,
  defaultModelPrice,
  defaultModelRatio,
  QuotaType,
} from '@tollway/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { usableGroups } from '../groups/usable.js';
import type { RegistrySnapshot } from '../model-registry/service.js';
import { registryMeta, type PricingVendor } from './registry-meta.js';
import { channelsByModel, endpointPaths, endpointTypesOf } from './vendors.js';

/** What the pricing page reads: the price options and the routing table (which models are served, by whom). */
export type PricingDeps = Pick<AppContext, 'options' | 'channelCache'>;

/** One row of the pricing page; quota_type is a QuotaType. */
export const pricingModel = z.object({
  model_name: z.string(),
  quota_type: z.union([z.literal(0), z.literal(1)]),
  /** 0 for fixed-price rows, and for models with no price at all (refused unless self-use or accept-unset). */
  model_ratio: z.number(),
  completion_ratio: z.number(),
  /** Dollars per call; 0 for ratio rows. */
  model_price: z.number(),
  /** Groups in which some enabled channel serves the model. */
  enable_groups: z.array(z.string()),
  /** The model's vendor (an id of the answer's `vendors`; 0: none; negative: guessed, not in the registry). */
  vendor_id: z.number(),
  /** From the model's registry entry (empty without one). */
  description: z.string(),
  /** A @lobehub/icons name, from the registry entry. */
  icon: z.string(),
  /** Comma-separated tags, from the registry entry. */
  tags: z.string(),
  /** new-api's endpoint types the model is called through (`supported_endpoint` gives their paths). */
  supported_endpoint_types: z.array(z.string()),
  /** 'tiered_expr' when the model is priced by a billing expression (new-api's field); absent otherwise. */
  billing_mode: z.string().optional(),
  /** The expression in dollars per million tokens (docs/using/pricing.md). */
  billing_expr: z.string().optional(),
  /** new-api's per-model ratios, present when configured: cache reads and writes, image and audio tokens. */
  cache_ratio: z.number().optional(),
  create_cache_ratio: z.number().optional(),
  image_ratio: z.number().optional(),
  audio_ratio: z.number().optional(),
  audio_completion_ratio: z.number().optional(),
  /** new-api's field, empty here (the vendor is vendor_id). */
  owner_by: z.string(),
});
export type PricingModel = z.infer<typeof pricingModel>;

export interface PricingPage {
  data: PricingModel[];
  /** Ratios of the groups the caller may use. */
  group_ratio: Record<string, number>;
  /** Groups the caller may use, with their descriptions. */
  usable_group: Record<string, string>;
  /** Vendors of the listed models. */
  vendors: PricingVendor[];
  /** Endpoint type → the path and method a client calls. */
  supported_endpoint: Record<string, { path: string; method: string }>;
  /** new-api's automatic groups; Tollway has none. */
  auto_groups: string[];
  /** new-api's marker of its pricing answer's shape (its console compares it). */
  pricing_version: string;
}

/** The pricing_version new-api's current release answers (controller/pricing.go). */
export const PRICING_VERSION = 'a42d372ccf0b5dd13ecf71203521f9d2';

/** The per-model ratio maps the pricing page shows beside the price, by their field names. */
const EXTRA_RATIOS = [
  ['cache_ratio', 'CacheRatio'],
  ['create_cache_ratio', 'CreateCacheRatio'],
  ['image_ratio', 'ImageRatio'],
  ['audio_ratio', 'AudioRatio'],
  ['audio_completion_ratio', 'AudioCompletionRatio'],
] as const;

/**
 * The pricing page for a caller in `group` (logged out: the default group): every model some enabled channel
 * routes, with its price, the groups that serve it and its registry metadata; a model the registry disables is
 * left off.
 */
export function pricingFor(deps: PricingDeps, group: string, registry: RegistrySnapshot): PricingPage {
  const o = deps.options;
  const groupRatio = o.json<Record<string, number>>('GroupRatio');
  const usable = usableGroups(o, group);
  const prices = o.json<Record<string, number>>('ModelPrice');
  const ratios = o.json<Record<string, number>>('ModelRatio');
  const completion = o.json<Record<string, number>>('CompletionRatio');
  const modes = o.json<Record<string, string>>('billing_setting.billing_mode');
  const exprs = o.json<Record<string, string>>('billing_setting.billing_expr');
  const extras = EXTRA_RATIOS.map(([field, key]) => [field, o.json<Record<string, number>>(key)] as const);
  const groups = [...new Set([...Object.keys(groupRatio), ...Object.keys(usable)])];
  const servedBy = new Map<string, string[]>();
  for (const g of groups) {
    for (const m of deps.channelCache.modelsForGroup(g)) {
      const list = servedBy.get(m);
      if (list) list.push(g);
      else servedBy.set(m, [g]);
    }
  }
  const channels = channelsByModel(deps.channelCache.all(), true);
  const vendors = new Map<number, PricingVendor>();
  const supported_endpoint: PricingPage['supported_endpoint'] = {};
  const named: PricingPage['supported_endpoint'] = {};
  const data: PricingModel[] = [];
  const metaOf = registryMeta(registry);
  for (const model of deps.channelCache.allModels()) {
    const enable_groups = servedBy.get(model) ?? [];
    const serving = channels.get(model) ?? [];
    const entry = metaOf(model, serving);
    if (entry.hidden) continue;
    const vendor = entry.vendor;
    if (vendor) vendors.set(vendor.id, vendor);
    let supported_endpoint_types = endpointTypesOf(model, serving);
    if (entry.endpoints) {
      supported_endpoint_types = Object.keys(entry.endpoints);
      Object.assign(named, entry.endpoints);
    }
    for (const e of supported_endpoint_types) if (endpointPaths[e]) supported_endpoint[e] = endpointPaths[e];
    const ratiosOf: Partial<Record<(typeof EXTRA_RATIOS)[number][0], number>> = {};
    for (const [field, map] of extras) if (typeof map[model] === 'number') ratiosOf[field] = map[model];
    const meta = {
      owner_by: '',
      ...ratiosOf,
      enable_groups,
      vendor_id: vendor?.id ?? 0,
      supported_endpoint_types,
      description: entry.description,
      icon: entry.icon,
      tags: entry.tags,
      // The ratio or price below stays the fallback new-api's console shows beside it.
      ...(modes[model] === BILLING_MODE_EXPR && exprs[model]?.trim()
        ? { billing_mode: BILLING_MODE_EXPR, billing_expr: exprs[model] }
        : undefined),
    };
    const price = prices[model];
    if (price !== undefined) {
      data.push({
        model_name: model,
        quota_type: QuotaType.Price,
        model_ratio: 0,
        completion_ratio: 0,
        model_price: price,
        ...meta,
      });
    } else {
      data.push({
        model_name: model,
        quota_type: QuotaType.Ratio,
        model_ratio: ratios[model] ?? 0,
        completion_ratio: completion[model] ?? 1,
        model_price: 0,
        ...meta,
      });
    }
  }
  const group_ratio: Record<string, number> = {};
  for (const g of Object.keys(usable)) group_ratio[g] = groupRatio[g] ?? 1;
  return {
    data,
    group_ratio,
    usable_group: usable,
    vendors: [...vendors.values()].sort((a, b) => a.id - b.id),
    // A registry entry's own paths override the defaults (new-api's order).
    supported_endpoint: { ...supported_endpoint, ...named },
    auto_groups: [],
    pricing_version: PRICING_VERSION,
  };
}

/** The caller's group for pricing: their own when logged in and enabled, else the default group. */
export const pricingGroup = (user: { group: string; status: number } | undefined): string =>
  user && user.status === 1 ? user.group : DEFAULT_GROUP;

/** Puts the shipped ratio and price tables back (ModelRatio, CompletionRatio, CacheRatio, ModelPrice). */
export async function resetModelPricing(deps: Pick<AppContext, 'options'>): Promise<void> {
  await deps.options.set('ModelRatio', JSON.stringify(defaultModelRatio));
  await deps.options.set('CompletionRatio', JSON.stringify(defaultCompletionRatio));
  await deps.options.set('CacheRatio', JSON.stringify(defaultCacheRatio));
  await deps.options.set('ModelPrice', JSON.stringify(defaultModelPrice));
}
