import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { eachLimited } from '../../lib/each-limited.js';
import { compileSafePattern } from '../../lib/safe-pattern.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { rebuildAbilities } from '../../core/routing/abilities.js';
import { parseJsonObject, splitList, type ChannelRow } from '../../core/routing/channel-row.js';
import { firstKey } from './balances.js';
import type { ChannelPatch } from './store.js';

/**
 * The keys of a channel's `settings` JSON this feature owns (new-api's names); every other key is kept as it is.
 * check_enabled and auto_sync_enabled are set by the channel form; the others are written here.
 */
export interface UpstreamUpdateSettings {
  upstream_model_update_check_enabled?: boolean;
  upstream_model_update_auto_sync_enabled?: boolean;
  upstream_model_update_last_check_time?: number;
  upstream_model_update_last_detected_models?: string[];
  upstream_model_update_last_removed_models?: string[];
  upstream_model_update_ignored_models?: string[];
}
type Settings = UpstreamUpdateSettings & Record<string, unknown>;

/** Channels whose upstream is asked at once by detect_all. */
const CONCURRENCY = 4;
const IGNORE_REGEX = 'regex:';
const MAX_NAMES = 10_000;

const names = z.array(z.string().max(255)).max(MAX_NAMES).optional();
export const upstreamIdBody = z.object({ id: z.number().int().positive() });
export const upstreamApplyBody = upstreamIdBody.extend({
  add_models: names,
  remove_models: names,
  ignore_models: names,
});
export type UpstreamApplyBody = z.infer<typeof upstreamApplyBody>;

/** Trimmed, distinct, non-empty, in first-seen order. */
export function normalizeNames(list: readonly unknown[] | undefined): string[] {
  const out = new Set<string>();
  for (const v of list ?? []) if (typeof v === 'string' && v.trim()) out.add(v.trim());
  return [...out];
}
const minus = (a: string[], b: string[]) => {
  const drop = new Set(b);
  return a.filter((m) => !drop.has(m));
};
const within = (a: string[] | undefined, allowed: string[]) => {
  const keep = new Set(allowed);
  return normalizeNames(a).filter((m) => keep.has(m));
};

/**
 * An ignore entry names a model exactly, or with `regex:` a pattern it matches, run by the linear-time engine of
 * administrator patterns (one it cannot run matches nothing).
 */
function ignoredBy(entries: string[]): (model: string) => boolean {
  const exact = new Set<string>();
  const patterns: { test(text: string): boolean }[] = [];
  for (const e of entries) {
    if (!e.startsWith(IGNORE_REGEX)) exact.add(e);
    else
      try {
        patterns.push(compileSafePattern(e.slice(IGNORE_REGEX.length).trim()));
      } catch {
        /* not a pattern the engine runs: ignores nothing */
      }
  }
  return (m) => exact.has(m) || patterns.some((p) => p.test(m));
}

/**
 * The changes an upstream list asks for: models it offers that the channel neither lists nor reaches through its
 * model_mapping (and that are not ignored), and listed models it no longer offers (mapping sources, being
 * aliases, are never proposed for removal).
 */
export function pendingChanges(
  local: string[],
  upstream: string[],
  ignored: string[],
  mapping: Record<string, unknown>,
): { add: string[]; remove: string[] } {
  const sources = new Set(Object.keys(mapping).map((k) => k.trim()));
  const covered = new Set([
    ...local,
    ...Object.values(mapping)
      .filter((v): v is string => typeof v === 'string')
      .map((v) => v.trim()),
  ]);
  const offered = new Set(upstream);
  const isIgnored = ignoredBy(ignored);
  return {
    add: normalizeNames(upstream).filter((m) => !covered.has(m) && !isIgnored(m)),
    remove: normalizeNames(local).filter((m) => !sources.has(m) && !offered.has(m)),
  };
}

export interface DetectResult {
  channel_id: number;
  channel_name: string;
  add_models: string[];
  remove_models: string[];
  last_check_time: number;
  auto_added_models: number;
}

export interface ApplyResult {
  id: number;
  added_models: string[];
  removed_models: string[];
  ignored_models: string[];
  remaining_models: string[];
  remaining_remove_models: string[];
  models: string;
  settings: string;
}

const settingsOf = (row: ChannelRow): Settings => parseJsonObject<Settings>(row.settings, {});

/**
 * Upstream model-update detection (new-api's upstream_updates): a channel's upstream model list (the fetch_models
 * code path) compared with its models; the pending additions and removals kept in its settings JSON, then applied
 * by choice (models and abilities rewritten, the routing cache reloaded), ignored, or left.
 */
export class UpstreamUpdates {
  constructor(private readonly ctx: AppContext) {}

  private get store() {
    return this.ctx.channels.store;
  }

  /** Writes the given settings keys (and models, with the abilities) over the row as it is now. */
  private async write(id: number, edit: (row: ChannelRow, s: Settings) => ChannelPatch | undefined) {
    return this.store.transaction(async (trx) => {
      const row = await this.store.findForUpdate(trx, id);
      if (!row) return undefined;
      const s = settingsOf(row);
      const patch = edit(row, s) ?? {};
      patch.settings = JSON.stringify(s);
      await this.store.update(trx, id, patch);
      const next = { ...row, ...patch };
      if (patch.models !== undefined) await rebuildAbilities(trx, [next]);
      return next;
    });
  }

  /** Asks the upstream and stores the pending changes (the check time even when the upstream fails). */
  async detect(id: number): Promise<DetectResult> {
    const row = await this.ctx.channels.get(id);
    const now = nowSeconds();
    let upstream: string[];
    try {
      upstream = await this.ctx.providers.listModels(
        { type: row.type, baseUrl: row.base_url, key: firstKey(row) },
        this.ctx.log,
      );
    } catch (err) {
      await this.write(id, (_, s) => {
        s.upstream_model_update_last_check_time = now;
        return undefined;
      });
      throw err;
    }
    let found = { add: [] as string[], remove: [] as string[] };
    const saved = await this.write(id, (cur, s) => {
      found = pendingChanges(
        splitList(cur.models),
        upstream,
        normalizeNames(s.upstream_model_update_ignored_models),
        parseJsonObject<Record<string, unknown>>(cur.model_mapping, {}),
      );
      s.upstream_model_update_last_check_time = now;
      s.upstream_model_update_last_detected_models = found.add;
      s.upstream_model_update_last_removed_models = found.remove;
      return undefined;
    });
    return {
      channel_id: id,
      channel_name: saved?.name ?? row.name,
      add_models: found.add,
      remove_models: found.remove,
      last_check_time: now,
      auto_added_models: 0,
    };
  }

  /**
   * Applies the chosen pending changes: chosen additions join the models (and leave the ignore list), chosen
   * removals leave them, ignored additions join the ignore list; names not pending are passed over.
   */
  async apply(body: UpstreamApplyBody): Promise<ApplyResult> {
    await this.ctx.channels.get(body.id);
    let out: Omit<ApplyResult, 'models' | 'settings'> | undefined;
    let changed = false;
    const row = await this.write(body.id, (cur, s) => {
      const pendingAdd = normalizeNames(s.upstream_model_update_last_detected_models);
      const pendingRemove = normalizeNames(s.upstream_model_update_last_removed_models);
      const add = within(body.add_models, pendingAdd);
      const ignore = minus(within(body.ignore_models, pendingAdd), add);
      const remove = minus(within(body.remove_models, pendingRemove), add);
      const origin = normalizeNames(splitList(cur.models));
      const next = minus(normalizeNames([...origin, ...add]), remove);
      s.upstream_model_update_ignored_models = minus(
        normalizeNames([...(s.upstream_model_update_ignored_models ?? []), ...ignore]),
        add,
      );
      const remaining = minus(pendingAdd, [...add, ...ignore]);
      const remainingRemove = minus(pendingRemove, remove);
      s.upstream_model_update_last_detected_models = remaining;
      s.upstream_model_update_last_removed_models = remainingRemove;
      s.upstream_model_update_last_check_time = nowSeconds();
      out = {
        id: cur.id,
        added_models: add,
        removed_models: remove,
        ignored_models: ignore,
        remaining_models: remaining,
        remaining_remove_models: remainingRemove,
      };
      changed = next.join(',') !== origin.join(',');
      return changed ? { models: next.join(',') } : undefined;
    });
    if (changed) await this.ctx.channels.changed();
    return { ...out!, models: row?.models ?? '', settings: row?.settings ?? '' };
  }

  /** Enabled channels with detection turned on in their settings. */
  private async watched(): Promise<ChannelRow[]> {
    return (await this.store.all()).filter(
      (r) => r.status === 1 && settingsOf(r).upstream_model_update_check_enabled === true,
    );
  }

  /** detect for every watched channel, a few at a time; one failing channel does not stop the others. */
  async detectAll() {
    const rows = await this.watched();
    const failed: number[] = [];
    let changedChannels = 0;
    let add = 0;
    let remove = 0;
    await eachLimited(rows, CONCURRENCY, async (row) => {
      try {
        const r = await this.detect(row.id);
        add += r.add_models.length;
        remove += r.remove_models.length;
        if (r.add_models.length || r.remove_models.length) changedChannels++;
      } catch {
        failed.push(row.id);
      }
    });
    return {
      processed_channels: rows.length,
      changed_channels: changedChannels,
      detected_add_models: add,
      detected_remove_models: remove,
      failed_channel_ids: failed.sort((a, b) => a - b),
    };
  }

  /** Applies every pending addition and removal of every watched channel. */
  async applyAll() {
    const results: (Omit<ApplyResult, 'id' | 'ignored_models' | 'models' | 'settings'> & {
      channel_id: number;
      channel_name: string;
    })[] = [];
    const failed: number[] = [];
    for (const row of await this.watched()) {
      const s = settingsOf(row);
      const add = normalizeNames(s.upstream_model_update_last_detected_models);
      const remove = normalizeNames(s.upstream_model_update_last_removed_models);
      if (add.length === 0 && remove.length === 0) continue;
      try {
        const r = await this.apply({ id: row.id, add_models: add, remove_models: remove });
        results.push({
          channel_id: row.id,
          channel_name: row.name,
          added_models: r.added_models,
          removed_models: r.removed_models,
          remaining_models: r.remaining_models,
          remaining_remove_models: r.remaining_remove_models,
        });
      } catch {
        failed.push(row.id);
      }
    }
    return {
      processed_channels: results.length,
      added_models: results.reduce((n, r) => n + r.added_models.length, 0),
      removed_models: results.reduce((n, r) => n + r.removed_models.length, 0),
      failed_channel_ids: failed,
      results,
    };
  }
}

export const upstreamUpdatesOf = perContext((ctx) => new UpstreamUpdates(ctx));
