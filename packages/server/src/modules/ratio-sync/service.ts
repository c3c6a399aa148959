// Price sync: this gateway's prices as new-api exposes them, and the differences from chosen upstreams'.
import { channelTypeById, ErrorCode } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { coded, refused } from '../../lib/errors.js';
import { checkUserUrl, guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy, OutboundBlockedError } from '../../lib/outbound-guard.js';
import { dict, effectivePrices, emptyPrices, modelPrices, priceDifferences } from './diff.js';
import { fetchAll, resultOf, type Target } from './fetch.js';
import {
  DEFAULT_ENDPOINT,
  DEFAULT_TIMEOUT_S,
  MAX_TIMEOUT_S,
  OFFICIAL_PRESET,
  OPENROUTER_ENDPOINT,
  OPTION_OF,
  PRICE_FIELDS,
  type FetchBody,
  type PriceData,
} from './schema.js';
import { channelSources, type ChannelSource } from './store.js';

type Options = AppContext['options'];
/** An address this gateway can fetch from (the guard checks it further). */
const HTTP_URL = /^https?:\/\//i;
export type RatioSyncDeps = Pick<AppContext, 'db' | 'options'>;

/** This gateway's price options as field → model → value. */
export function localPrices(options: Options): PriceData {
  const out = emptyPrices();
  for (const f of PRICE_FIELDS) Object.assign(out[f], options.json<Record<string, number>>(OPTION_OF[f]));
  return out;
}

/** GET /api/ratio_config: the price tables new-api exposes, only while ExposeRatioEnabled is on. */
export function exposedRatioConfig(options: Options) {
  if (!options.bool('ExposeRatioEnabled'))
    throw refused('exposing the ratio configuration is turned off (ExposeRatioEnabled)', ErrorCode.RatioConfigDisabled);
  return {
    ...localPrices(options),
    create_cache_ratio: { ...options.json<Record<string, number>>('CreateCacheRatio') },
  };
}

/** A channel's base URL: its own, else its type's default. */
const baseOf = (c: ChannelSource) => (c.base_url || channelTypeById.get(c.type)?.baseUrl || '').replace(/\/+$/, '');

/** Channels that can be price sources (those with a base URL), then new-api's official preset. */
export async function syncableChannels(deps: RatioSyncDeps) {
  const rows = await channelSources(deps.db);
  return [
    ...rows
      .filter((c) => baseOf(c) !== '')
      .map((c) => ({ id: c.id, name: c.name, base_url: baseOf(c), status: c.status, type: c.type })),
    { ...OFFICIAL_PRESET, status: 1, type: 0 },
  ];
}

/** The URL fetched for an upstream: the endpoint when it is a whole URL, else base URL + endpoint (a path). */
function urlOf(base: string, endpoint: string | undefined): string {
  const e = endpoint?.trim() || DEFAULT_ENDPOINT;
  if (HTTP_URL.test(e)) return e;
  return `${base.replace(/\/+$/, '')}${e.startsWith('/') ? e : `/${e}`}`;
}

interface Planned {
  targets: Target[];
  /** Upstreams answered without a fetch (OpenRouter's pricing needs a channel key, which is never sent). */
  skipped: { name: string; error: string }[];
}

/** The upstreams of a fetch: those named in the body (each URL checked by the guard first), else channels by id. */
async function plan(deps: RatioSyncDeps, body: FetchBody): Promise<Planned> {
  const out: Planned = { targets: [], skipped: [] };
  const used = new Set<string>();
  const unique = (name: string) => {
    let n = name;
    for (let i = 2; used.has(n); i++) n = `${name} #${i}`;
    used.add(n);
    return n;
  };
  if (body.upstreams?.length) {
    const policy = fetchPolicy(deps.options);
    for (const u of body.upstreams) {
      if (!HTTP_URL.test(u.base_url)) continue;
      const name = unique(u.id ? `${u.name}(${u.id})` : u.name);
      if (u.endpoint === OPENROUTER_ENDPOINT) {
        out.skipped.push({ name, error: 'OpenRouter prices are not read: they need the channel key' });
        continue;
      }
      const url = urlOf(u.base_url, u.endpoint);
      try {
        await checkUserUrl(policy, url);
      } catch (err) {
        if (!(err instanceof OutboundBlockedError)) throw err;
        throw coded(
          ErrorCode.RatioSyncUpstreamRefused,
          `prices cannot be fetched from upstream ${name}: ${err.message}`,
          {
            name,
            ...err.reasonParams(),
          },
        );
      }
      out.targets.push({ name, url });
    }
  } else if (body.channel_ids?.length) {
    for (const c of await channelSources(deps.db, body.channel_ids)) {
      const base = baseOf(c);
      if (HTTP_URL.test(base)) out.targets.push({ name: unique(`${c.name}(${c.id})`), url: urlOf(base, undefined) });
    }
  }
  if (out.targets.length + out.skipped.length === 0)
    throw coded(ErrorCode.RatioSyncNoUpstream, 'no valid upstream to fetch prices from');
  return out;
}

/**
 * POST /api/ratio_sync/fetch: each upstream's prices (through the outbound guard), compared with this gateway's.
 * Nothing is saved: root accepts a difference by writing the option (PUT /api/option/).
 */
export async function fetchUpstreamPrices(deps: RatioSyncDeps, body: FetchBody) {
  const { targets, skipped } = await plan(deps, body);
  const seconds = body.timeout && body.timeout > 0 ? Math.min(body.timeout, MAX_TIMEOUT_S) : DEFAULT_TIMEOUT_S;
  const dispatcher = guardedDispatcher(() => fetchPolicy(deps.options));
  const fetched = [...(await fetchAll(targets, dispatcher, seconds * 1000)), ...skipped];
  const local = effectivePrices(localPrices(deps.options));
  const upstreams = fetched.flatMap((f) =>
    'data' in f ? [{ name: f.name, data: effectivePrices(f.data), unsure: new Set(f.unsure) }] : [],
  );
  const differences = priceDifferences(local, upstreams);
  const prices = dict<{ current: Record<string, number>; upstreams: Record<string, Record<string, number>> }>();
  for (const model of Object.keys(differences)) {
    const row = { current: modelPrices(local, model), upstreams: dict<Record<string, number>>() };
    for (const up of upstreams) {
      const theirs = modelPrices(up.data, model);
      if ('model_ratio' in theirs || 'model_price' in theirs) row.upstreams[up.name] = theirs;
    }
    prices[model] = row;
  }
  return { differences, prices, test_results: fetched.map(resultOf) };
}
