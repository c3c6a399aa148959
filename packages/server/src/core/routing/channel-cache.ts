import { channelCostFactor, type RoutingStrategyName } from '@tollway/shared';
import type { Db } from '../../db/connect.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { ChannelBreakers } from './breakers.js';
import {
  channelKeys,
  parseJsonObject,
  resolveModelMapping,
  splitList,
  type ChannelRow,
  type MultiKeyInfo,
} from './channel-row.js';
import { callSettingsOf, type ChannelCallSettings } from './channel-settings.js';
import { parseHeaderOverride, type HeaderOverride } from './header-override.js';
import { ChannelLoad } from './channel-load.js';
import type { RoutingStrategies } from './strategies.js';
import { pickInTier, type PickEnv } from './strategy-pick.js';

/** A channel as the relay uses it: parsed once when the cache is (re)built. */
export interface CachedChannel {
  id: number;
  type: number;
  name: string;
  status: number;
  baseUrl: string;
  keys: string[];
  /** Per key: true when usable. */
  keyEnabled: boolean[];
  multiKey: boolean;
  multiKeyMode: 'random' | 'polling';
  pollIndex: number;
  models: string[];
  groups: string[];
  priority: number;
  weight: number;
  tag: string;
  modelMapping: Record<string, string>;
  /** Put in front of the model name sent upstream, after the mapping ('' for none). */
  modelPrefix: string;
  /** The largest estimated input (prompt tokens) the channel takes; 0: no limit. */
  maxInputTokens: number;
  statusCodeMapping: Record<string, string>;
  systemPrompt: string;
  paramOverride: Record<string, unknown>;
  setting: Record<string, unknown>;
  other: string;
  organization: string;
  autoBan: boolean;
  testModel: string;
  /** header_override, parsed (undefined: none, the common case). */
  headerOverride: HeaderOverride | undefined;
  /** What the channel's settings (new-api's other settings) change on a call. */
  callSettings: ChannelCallSettings;
  /** lowest_price's factor on the listed price of what the channel serves (setting.cost_factor; 1 when unset). */
  costFactor: number;
}

interface Tier {
  priority: number;
  channels: CachedChannel[];
}

/** The channels of one group × model by priority tier, their input caps summarised once per reload. */
interface Route {
  tiers: Tier[];
  /** Inputs up to this many tokens fit every channel (Infinity when none has a cap): selection filters nothing. */
  fitsAll: number;
  /** The largest input some channel takes (Infinity when one has no cap). */
  fitsSome: number;
}

function routeOf(tiers: Tier[]): Route {
  let fitsAll = Infinity;
  let fitsSome = 0;
  for (const tier of tiers) {
    for (const c of tier.channels) {
      const cap = c.maxInputTokens > 0 ? c.maxInputTokens : Infinity;
      fitsAll = Math.min(fitsAll, cap);
      fitsSome = Math.max(fitsSome, cap);
    }
  }
  return { tiers, fitsAll, fitsSome };
}

/** `tried` plus the channels whose cap is below `inputTokens` (only for a route where some cap is). */
function withOverCap(tiers: Tier[], tried: ReadonlySet<number>, inputTokens: number): ReadonlySet<number> {
  const skip = new Set(tried);
  for (const tier of tiers)
    for (const c of tier.channels) if (c.maxInputTokens > 0 && c.maxInputTokens < inputTokens) skip.add(c.id);
  return skip;
}

/**
 * The model a channel is asked for: the client's model through the channel's model_mapping (`model`, what billing
 * and logs know as the upstream model), and the name sent upstream, its model_prefix in front (`upstream`).
 */
export function channelModel(
  ch: Pick<CachedChannel, 'modelMapping' | 'modelPrefix'>,
  model: string,
): { model: string; upstream: string } | { error: string } {
  const mapped = resolveModelMapping(ch.modelMapping, model);
  if ('error' in mapped) return mapped;
  return { model: mapped.model, upstream: ch.modelPrefix ? ch.modelPrefix + mapped.model : mapped.model };
}

export function toCachedChannel(row: ChannelRow): CachedChannel {
  const info = parseJsonObject<Partial<MultiKeyInfo>>(row.channel_info, {});
  const keys = channelKeys(row);
  const statuses = info.multi_key_status_list ?? {};
  const setting = parseJsonObject<Record<string, unknown>>(row.setting, {});
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    status: row.status,
    baseUrl: row.base_url.replace(/\/+$/, ''),
    keys,
    keyEnabled: keys.map((_, i) => (statuses[String(i)] ?? 1) === 1),
    multiKey: Boolean(info.is_multi_key),
    multiKeyMode: info.multi_key_mode === 'polling' ? 'polling' : 'random',
    pollIndex: info.multi_key_polling_index ?? 0,
    models: splitList(row.models),
    groups: splitList(row.group),
    priority: Number(row.priority),
    weight: row.weight,
    tag: row.tag,
    modelMapping: parseJsonObject<Record<string, string>>(row.model_mapping, {}),
    modelPrefix: row.model_prefix ?? '',
    maxInputTokens: Math.max(0, Number(row.max_input_tokens) || 0),
    statusCodeMapping: parseJsonObject<Record<string, string>>(row.status_code_mapping, {}),
    systemPrompt: row.system_prompt ?? '',
    paramOverride: parseJsonObject<Record<string, unknown>>(row.param_override, {}),
    setting,
    other: row.other ?? '',
    organization: row.openai_organization,
    autoBan: row.auto_ban === 1,
    testModel: row.test_model,
    headerOverride: parseHeaderOverride(row.header_override),
    callSettings: callSettingsOf(
      parseJsonObject<Record<string, unknown>>(row.settings, {}),
      setting.pass_through_body_enabled === true,
    ),
    costFactor: channelCostFactor(setting),
  };
}

const abilityKey = (group: string, model: string) => `${group}\u0000${model}`;

/**
 * Channels and abilities held in memory. Routing reads only this; it is rebuilt from the database after every
 * channel change on this node, on a bus message from other nodes, and every SYNC_FREQUENCY seconds.
 */
export class ChannelCache {
  private byId = new Map<number, CachedChannel>();
  private routes = new Map<string, Route>();
  private modelsByGroup = new Map<string, string[]>();
  private readonly reloaded: (() => void)[] = [];
  private strategies: RoutingStrategies | undefined;
  /** What select's strategies read, reused by every call (select runs to its end without awaiting). */
  private readonly env: PickEnv<CachedChannel> & { model: string };

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    /** Channels whose breaker is open are skipped while another candidate is left. */
    private readonly health?: Pick<ChannelBreakers, 'blocked'>,
    /** Calls in flight and latency per channel, told by every attempt (relay/pipeline/attempt-health.ts). */
    readonly load: ChannelLoad = new ChannelLoad(),
  ) {
    const env: PickEnv<CachedChannel> & { model: string } = {
      load,
      now: 0,
      model: '',
      costOf: (c) => this.strategies?.costOf(c, env.model) ?? Infinity,
    };
    this.env = env;
  }

  /** Chooses inside a priority tier by the routing strategies (without: weighted random, always). */
  routeBy(strategies: RoutingStrategies): void {
    this.strategies = strategies;
  }

  /** Keys sealed at rest are opened here, once per reload, never per relay call. */
  async reload(): Promise<void> {
    const k = this.db.kysely;
    const [rows, abilities] = await Promise.all([
      k.selectFrom('channels').selectAll().execute(),
      k.selectFrom('abilities').selectAll().where('enabled', '=', 1).execute(),
    ]);
    const byId = new Map<number, CachedChannel>();
    for (const row of rows) byId.set(row.id, toCachedChannel({ ...row, key: this.box.open(row.key) }));
    const grouped = new Map<string, Map<number, CachedChannel[]>>();
    const models = new Map<string, Set<string>>();
    for (const a of abilities) {
      const ch = byId.get(a.channel_id);
      if (!ch || ch.status !== 1) continue;
      const key = abilityKey(a.group, a.model);
      let byPriority = grouped.get(key);
      if (!byPriority) grouped.set(key, (byPriority = new Map()));
      const p = Number(a.priority);
      const list = byPriority.get(p);
      if (list) list.push(ch);
      else byPriority.set(p, [ch]);
      let set = models.get(a.group);
      if (!set) models.set(a.group, (set = new Set()));
      set.add(a.model);
    }
    const routes = new Map<string, Route>();
    for (const [key, byPriority] of grouped) {
      routes.set(
        key,
        routeOf(
          [...byPriority.entries()]
            .sort((x, y) => y[0] - x[0])
            .map(([priority, channels]) => ({ priority, channels: channels.sort((x, y) => x.id - y.id) })),
        ),
      );
    }
    this.byId = byId;
    this.routes = routes;
    this.modelsByGroup = new Map([...models].map(([g, set]) => [g, [...set].sort()]));
    this.load.track(byId.keys());
    this.strategies?.channelsChanged();
    for (const fn of this.reloaded) fn();
  }

  /** Runs `fn` after every reload (the channels may have changed). */
  onReload(fn: () => void): void {
    this.reloaded.push(fn);
  }

  get(id: number): CachedChannel | undefined {
    return this.byId.get(id);
  }

  all(): CachedChannel[] {
    return [...this.byId.values()];
  }

  /** Models routable in a group (enabled channels only). */
  modelsForGroup(group: string): string[] {
    return this.modelsByGroup.get(group) ?? [];
  }

  /** Every model routable in any group. */
  allModels(): string[] {
    const out = new Set<string>();
    for (const list of this.modelsByGroup.values()) for (const m of list) out.add(m);
    return [...out].sort();
  }

  hasModel(group: string, model: string): boolean {
    return this.routes.has(abilityKey(group, model));
  }

  /** The largest estimated input a channel of group × model takes (Infinity: one has no cap); undefined when none serves it. */
  inputLimit(group: string, model: string): number | undefined {
    return this.routes.get(abilityKey(group, model))?.fitsSome;
  }

  /**
   * Picks a channel for group × model. Attempt n starts at priority tier n (highest first), the group's or model's
   * routing strategy inside the tier (weighted random by default; all-zero weights: equal chance); channels already tried in this request are skipped, and
   * when the tier has none left the highest tier with an untried channel is used. Channels whose breaker is
   * open are skipped as if tried; when every untried candidate is open they are used all the same. Channels whose
   * max_input_tokens is below `inputTokens` (the call's estimated prompt) are never picked.
   */
  select(
    group: string,
    model: string,
    tried: ReadonlySet<number>,
    attempt: number,
    inputTokens = 0,
    random: () => number = Math.random,
  ): CachedChannel | undefined {
    const route = this.routes.get(abilityKey(group, model));
    if (!route || route.tiers.length === 0) return undefined;
    const { tiers } = route;
    // A route without caps (or an input every cap takes) costs one comparison here.
    const skip = inputTokens > route.fitsAll ? withOverCap(tiers, tried, inputTokens) : tried;
    const strategy = this.strategies?.strategyFor(group, model) ?? 'weighted';
    const env = strategy === 'weighted' ? undefined : this.env;
    if (env) {
      env.now = this.load.clock();
      env.model = model;
    }
    return (
      pickFromTiers(strategy, tiers, attempt, skip, random, this.health, env) ??
      (this.health ? pickFromTiers(strategy, tiers, attempt, skip, random, undefined, env) : undefined)
    );
  }
}

function pickFromTiers(
  strategy: RoutingStrategyName,
  tiers: Tier[],
  attempt: number,
  tried: ReadonlySet<number>,
  random: () => number,
  health: Pick<ChannelBreakers, 'blocked'> | undefined,
  env: PickEnv<CachedChannel> | undefined,
): CachedChannel | undefined {
  const start = Math.min(attempt, tiers.length - 1);
  const picked = pickInTier(strategy, tiers[start]!.channels, tried, random, health, env);
  if (picked) return picked;
  for (const tier of tiers) {
    const p = pickInTier(strategy, tier.channels, tried, random, health, env);
    if (p) return p;
  }
  return undefined;
}

/**
 * Chooses a usable key index of a channel (random or polling); undefined when every key is disabled. Keys whose
 * breaker is open are passed over while another enabled key is left.
 */
export function chooseKey(
  ch: CachedChannel,
  random: () => number = Math.random,
  health?: Pick<ChannelBreakers, 'keyBlocked'>,
): number | undefined {
  if (!ch.multiKey) return ch.keyEnabled[0] === false ? undefined : 0;
  const healthy = health ? pickKey(ch, random, (i) => ch.keyEnabled[i]! && !health.keyBlocked(ch.id, i)) : undefined;
  return healthy ?? pickKey(ch, random, (i) => ch.keyEnabled[i]!);
}

function pickKey(ch: CachedChannel, random: () => number, usable: (i: number) => boolean): number | undefined {
  if (ch.multiKeyMode === 'polling') {
    for (let step = 0; step < ch.keys.length; step++) {
      const i = (ch.pollIndex + step) % ch.keys.length;
      if (usable(i)) {
        ch.pollIndex = (i + 1) % ch.keys.length;
        return i;
      }
    }
    return undefined;
  }
  const found: number[] = [];
  for (let i = 0; i < ch.keys.length; i++) if (usable(i)) found.push(i);
  return found.length ? found[Math.floor(random() * found.length)] : undefined;
}
