import { z } from 'zod';
import { ErrorCode } from './error-codes.js';
import { inputRule } from './input-rules.js';
import { json, type OptionDef } from './option-def.js';

/**
 * Routing strategies: how a channel is chosen inside one priority tier (tiers stay first; see
 * docs/operating/routing-strategies.md). `weighted` is the weighted random choice Tollway always made.
 */
export const ROUTING_STRATEGIES = ['weighted', 'least_inflight', 'latency', 'lowest_price'] as const;
export type RoutingStrategyName = (typeof ROUTING_STRATEGIES)[number];

export const DEFAULT_ROUTING_STRATEGY: RoutingStrategyName = 'weighted';

/** Groups and models named in the setting: bounded, so the parsed setting stays small. */
const NAMED_MAX = 1000;
const NAME_MAX = 200;

const strategyName = z.enum(ROUTING_STRATEGIES, {
  error: (issue) => `unknown routing strategy ${JSON.stringify(issue.input)} (one of ${ROUTING_STRATEGIES.join(', ')})`,
});

const byName = z
  .record(z.string().min(1).max(NAME_MAX), strategyName)
  .refine(
    (m) => Object.keys(m).length <= NAMED_MAX,
    inputRule(ErrorCode.InputTooMany, `must have at most ${NAMED_MAX} entries`, { max: NAMED_MAX }),
  );

/**
 * The `RoutingStrategy` option: the strategy of every route (`default`), of a group's routes (`groups`) and of a
 * model's routes in any group (`models`); a model's entry wins over its group's, a group's over the default.
 */
export const routingStrategySetting = z
  .object({
    default: strategyName.default(DEFAULT_ROUTING_STRATEGY),
    groups: byName.default({}),
    models: byName.default({}),
  })
  .strict();
export type RoutingStrategySetting = z.infer<typeof routingStrategySetting>;

export const routingStrategyOptionDefs = {
  RoutingStrategy: json({ default: DEFAULT_ROUTING_STRATEGY, groups: {}, models: {} }, routingStrategySetting),
} satisfies Record<string, OptionDef>;

/**
 * The optional per-channel cost factor read by `lowest_price` from a channel's `setting` JSON
 * (`{"cost_factor": 0.8}`: this channel's upstream costs 80% of the listed price); 1 when absent or not a
 * positive finite number.
 */
export const CHANNEL_COST_FACTOR_SETTING = 'cost_factor';
/** The largest cost factor a channel may be given (a channel 1000× the list price is a mistake, not a contract). */
export const CHANNEL_COST_FACTOR_MAX = 1000;

/** What a channel's setting JSON may hold for lowest_price (checked when a channel is saved). */
export const channelCostSetting = z.object({
  [CHANNEL_COST_FACTOR_SETTING]: z.number().positive().max(CHANNEL_COST_FACTOR_MAX).optional(),
});

export function channelCostFactor(setting: Record<string, unknown>): number {
  const v = setting[CHANNEL_COST_FACTOR_SETTING];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 1;
}
