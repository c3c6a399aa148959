import {
  DEFAULT_ROUTING_STRATEGY,
  routingStrategySetting,
  type RoutingStrategyName,
  type RoutingStrategySetting,
} from '@tollway/shared';
import type { OptionsService } from '../options/service.js';
import { resolveModelMapping } from './channel-row.js';
import type { Candidate } from './strategy-pick.js';

/**
 * The price the pricing engine asks for a reference call on `model` (quota, at group ratio 1: every candidate of
 * a route is in the same group); undefined when the model has no price. Given by the relay's billing.
 */
export type ReferencePrice = (model: string) => number | undefined;

/** What lowest_price reads of a channel: its model_mapping and its cost factor (setting.cost_factor). */
export interface PricedCandidate extends Candidate {
  modelMapping: Record<string, string>;
  costFactor: number;
}

/** The cached costs kept per channel: one per model routed to it (the models of its abilities, so few). */
const COSTS_PER_CHANNEL_MAX = 4096;

interface ResolvedSetting {
  fallback: RoutingStrategyName;
  groups: Map<string, RoutingStrategyName>;
  models: Map<string, RoutingStrategyName>;
}

function resolveSetting(raw: unknown): ResolvedSetting {
  const parsed = routingStrategySetting.safeParse(raw);
  // A stored value this version cannot read (an import, a hand edit) routes as before: weighted.
  const s: RoutingStrategySetting = parsed.success
    ? parsed.data
    : { default: DEFAULT_ROUTING_STRATEGY, groups: {}, models: {} };
  return { fallback: s.default, groups: new Map(Object.entries(s.groups)), models: new Map(Object.entries(s.models)) };
}

/**
 * The routing strategy of each group × model (the RoutingStrategy option: a model's entry over its group's over
 * the default) and the cost lowest_price compares: the reference price of the model the channel would serve after
 * its model_mapping, times the channel's cost factor. Costs are cached per channel and model, dropped when an
 * option or the channels change.
 */
export class RoutingStrategies {
  private setting: ResolvedSetting | undefined;
  private costs = new Map<number, Map<string, number>>();

  constructor(
    private readonly options: Pick<OptionsService, 'json' | 'onChange'>,
    private readonly referencePrice: ReferencePrice,
  ) {
    options.onChange((key) => {
      if (key === 'RoutingStrategy') this.setting = undefined;
      // Any pricing option may have changed a model's price.
      this.costs = new Map();
    });
  }

  strategyFor(group: string, model: string): RoutingStrategyName {
    const s = (this.setting ??= resolveSetting(this.options.json('RoutingStrategy')));
    return s.models.get(model) ?? s.groups.get(group) ?? s.fallback;
  }

  /** The channels changed (mappings, cost factors): costs are computed again. */
  channelsChanged(): void {
    this.costs = new Map();
  }

  /** What a call of `model` costs on the channel (Infinity: the model it would serve has no price). */
  costOf(ch: PricedCandidate, model: string): number {
    let byModel = this.costs.get(ch.id);
    const cached = byModel?.get(model);
    if (cached !== undefined) return cached;
    const mapped = resolveModelMapping(ch.modelMapping, model);
    const price = 'error' in mapped ? undefined : this.referencePrice(mapped.model);
    const cost = price === undefined ? Infinity : price * ch.costFactor;
    if (!byModel) this.costs.set(ch.id, (byModel = new Map()));
    if (byModel.size < COSTS_PER_CHANNEL_MAX) byModel.set(model, cost);
    return cost;
  }
}
