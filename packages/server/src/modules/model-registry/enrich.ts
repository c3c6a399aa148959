// What the model list adds to a registry entry from the routing table: the channels, groups, billing types and
// endpoints of the served models it describes (new-api's enrichModels).
import { QuotaType } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { channelsByModel, endpointTypesOf } from '../pricing/vendors.js';
import { ruleCovers } from './matching.js';
import { NameRule } from './schema.js';
import type { ModelRow } from './store.js';

/** What enrichment reads: the routing table and the price options. */
export type ServedDeps = Pick<AppContext, 'options' | 'channelCache'>;

/** A registry entry as the model list answers it. */
export type ModelView = Omit<ModelRow, 'deleted_at'> & {
  bound_channels: { name: string; type: number }[];
  enable_groups: string[];
  quota_types: number[];
  /** Rule entries (prefix, contains, suffix): the served models they cover. */
  matched_models?: string[];
  matched_count?: number;
};

/** Served model → the enabled channels listing it (new-api's enabled abilities). */
export const servedModels = (deps: ServedDeps): Map<string, CachedChannel[]> =>
  channelsByModel(deps.channelCache.all(), true);

/** A stored row without deleted_at (always NULL here). */
export function rowView(row: ModelRow): Omit<ModelRow, 'deleted_at'> {
  const { deleted_at: _deleted, ...rest } = row;
  return rest;
}

/** The rows with what the served models they describe add; a stored endpoints text is kept as it is. */
export function enrichModels(deps: ServedDeps, rows: readonly ModelRow[]): ModelView[] {
  const served = servedModels(deps);
  const prices = deps.options.json<Record<string, number>>('ModelPrice');
  const quotaType = (name: string) => (prices[name] !== undefined ? QuotaType.Price : QuotaType.Ratio);
  return rows.map((row) => {
    const exact = row.name_rule === NameRule.Exact;
    const names = exact
      ? served.has(row.model_name)
        ? [row.model_name]
        : []
      : [...served.keys()].filter((n) => ruleCovers(row.name_rule, row.model_name, n)).sort();
    const channels = names.flatMap((n) => served.get(n)!);
    const bound = new Map<string, { name: string; type: number }>();
    for (const c of channels) bound.set(`${c.name}\u0000${c.type}`, { name: c.name, type: c.type });
    const endpointTypes = exact
      ? endpointTypesOf(row.model_name, channels)
      : [...new Set(names.flatMap((n) => endpointTypesOf(n, served.get(n)!)))];
    const view: ModelView = {
      ...rowView(row),
      endpoints: row.endpoints.trim() === '' ? JSON.stringify(endpointTypes) : row.endpoints,
      bound_channels: [...bound.values()],
      enable_groups: [...new Set(channels.flatMap((c) => c.groups))].sort(),
      quota_types: exact ? [quotaType(row.model_name)] : [...new Set(names.map(quotaType))].sort((a, b) => a - b),
    };
    if (!exact) {
      view.matched_models = names;
      view.matched_count = names.length;
    }
    return view;
  });
}
