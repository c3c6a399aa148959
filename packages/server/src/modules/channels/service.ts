import { ErrorCode, type CreateChannelBody, type UpdateChannelBody } from '@tollway/shared';
import type { Logger } from 'pino';
import type { Db } from '../../db/connect.js';
import { coded, notFound } from '../../lib/errors.js';
import type { ClusterBus } from '../../lib/cluster-bus.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { nowSeconds } from '../../lib/time.js';
import type { OptionsService } from '../../core/options/service.js';
import type { ProviderCatalog } from '../../core/providers.js';
import { deleteAbilities, rebuildAbilities, rebuildAllAbilities } from '../../core/routing/abilities.js';
import type { ChannelBreakers } from '../../core/routing/breakers.js';
import type { CachedChannel, ChannelCache } from '../../core/routing/channel-cache.js';
import { channelKeys, parseJsonObject, type ChannelRow, type MultiKeyInfo } from '../../core/routing/channel-row.js';
import { listChannels, type ChannelPage, type ListRequest } from './listing.js';
import { maskedChannelKey } from './view.js';
import { ChannelStatusRules, statusPatch, testPatch } from './status.js';
import { ChannelsStore, type ChannelPatch, type NewChannel } from './store.js';
import { TagTools } from './tags.js';
import { ChannelTester } from './tester.js';
import {
  checkChannelExtras,
  checkKeys,
  checkModelMapping,
  checkStatusCodeMapping,
  joinGroups,
  normalizeOther,
  splitJsonKeys,
  splitKeyLines,
} from './validate.js';

/** Keys one batch may create. */
const BATCH_KEYS_MAX = 1000;

/** A single key must be one line (several lines belong in batch or multi-key mode); JSON keys (Vertex) excepted. */
function singleKey(providers: ProviderCatalog, type: number, key: string): string {
  const k = key.trim();
  if (!providers.jsonKeys(type) && k.includes('\n'))
    throw coded(
      ErrorCode.ChannelKeyMultiline,
      'key: the key has several lines; use batch or multi_to_single mode for several keys',
    );
  checkKeys(providers, type, [k]);
  return k;
}

/** A key was given: not blank, and not the masked key of a list or detail answer sent back (that keeps the key). */
const isNewKey = (cur: ChannelRow, key: string | undefined): key is string =>
  !!key?.trim() && key.trim() !== maskedChannelKey(cur);

/**
 * Channel rules: create (single, batch, multi-key), update (full or row actions), delete, abilities, tags and
 * automatic status changes. Every change writes the channel and its abilities in one transaction, then reloads
 * the routing cache and tells other nodes (bus topic `channels`).
 */
export class ChannelsService {
  readonly store: ChannelsStore;
  readonly tags: TagTools;
  readonly tester: ChannelTester;
  private readonly status: ChannelStatusRules;

  constructor(
    db: Db,
    readonly cache: ChannelCache,
    options: OptionsService,
    private readonly bus: ClusterBus,
    private readonly log: Logger,
    secretBox: SecretBox,
    readonly providers: ProviderCatalog,
    /** The node's channel breakers (health in the list, tests that trip them). */
    readonly breakers?: ChannelBreakers,
  ) {
    this.store = new ChannelsStore(db, secretBox);
    const changed = () => this.changed();
    this.status = new ChannelStatusRules(this.store, options, changed, log);
    this.tags = new TagTools(this.store, changed);
    this.tester = new ChannelTester(this, options, log);
  }

  /** Reloads this node's cache and asks the other nodes to reload theirs. */
  async changed(): Promise<void> {
    await this.cache.reload();
    await this.bus.publish('channels').catch((err: unknown) => this.log.warn({ err }, 'channel broadcast failed'));
  }

  /** The channel list and search (keys masked; tag mode groups tagged channels). */
  list(req: ListRequest): Promise<ChannelPage> {
    return listChannels(this.store, req);
  }

  async get(id: number): Promise<ChannelRow> {
    const row = await this.store.find(id);
    if (!row) throw notFound('channel not found, refresh and retry', ErrorCode.ChannelNotFound);
    return row;
  }

  /** Creates one channel (single, multi_to_single) or one per key (batch); returns the new ids. */
  async create(body: CreateChannelBody): Promise<number[]> {
    const c = body.channel;
    const type = c.type ?? 1;
    const base: NewChannel = {
      type,
      key: '',
      openai_organization: c.openai_organization ?? '',
      test_model: c.test_model ?? '',
      status: c.status ?? 1,
      name: c.name ?? '',
      weight: c.weight ?? 0,
      created_time: nowSeconds(),
      test_time: 0,
      response_time: 0,
      base_url: c.base_url ?? '',
      other: normalizeOther(this.providers, type, c.other ?? ''),
      balance: 0,
      balance_updated_time: 0,
      models: (c.models ?? []).join(','),
      group: joinGroups(c.group ?? ['default']),
      used_quota: 0,
      model_mapping: c.model_mapping ?? '',
      status_code_mapping: c.status_code_mapping ?? '',
      priority: c.priority ?? 0,
      auto_ban: c.auto_ban ?? 1,
      other_info: '',
      tag: c.tag ?? '',
      setting: c.setting ?? '',
      param_override: c.param_override ?? '',
      system_prompt: c.system_prompt ?? '',
      max_input_tokens: c.max_input_tokens ?? 0,
      model_prefix: c.model_prefix ?? '',
      expired_time: c.expired_time ?? 0,
      channel_info: '',
      settings: c.settings ?? '',
      header_override: c.header_override ?? '',
      remark: c.remark ?? '',
    };
    checkModelMapping(base.model_mapping);
    checkStatusCodeMapping(base.status_code_mapping);
    checkChannelExtras(base);
    const keyText = c.key ?? '';
    let rows: NewChannel[];
    if (body.mode === 'single') {
      rows = [{ ...base, key: singleKey(this.providers, type, keyText) }];
    } else if (body.mode === 'batch') {
      const keys = this.providers.jsonKeys(type) ? splitJsonKeys(type, keyText) : splitKeyLines(keyText);
      if (keys.length === 0) throw coded(ErrorCode.ChannelKeyRequired, 'key: please fill in at least one key');
      if (keys.length > BATCH_KEYS_MAX)
        throw coded(ErrorCode.ChannelKeysTooMany, `key: at most ${BATCH_KEYS_MAX} keys per batch`, {
          max: BATCH_KEYS_MAX,
        });
      checkKeys(this.providers, type, keys);
      rows = keys.map((key) => ({ ...base, key }));
    } else {
      if (this.providers.jsonKeys(type))
        throw coded(ErrorCode.ChannelMultiKeyUnavailable, `multi-key mode is not available for channel type ${type}`, {
          type,
        });
      const keys = [...new Set(splitKeyLines(keyText))];
      if (keys.length === 0) throw coded(ErrorCode.ChannelKeyRequired, 'key: please fill in at least one key');
      checkKeys(this.providers, type, keys);
      const info: MultiKeyInfo = {
        is_multi_key: true,
        multi_key_mode: body.multi_key_mode,
        multi_key_status_list: {},
        multi_key_polling_index: 0,
        multi_key_size: keys.length,
      };
      rows = [{ ...base, key: keys.join('\n'), channel_info: JSON.stringify(info) }];
    }
    const ids = await this.store.transaction(async (trx) => {
      const out: number[] = [];
      for (const row of rows) out.push(await this.store.insert(trx, row));
      await rebuildAbilities(
        trx,
        rows.map((r, i) => ({ ...r, id: out[i]! })),
      );
      return out;
    });
    await this.changed();
    return ids;
  }

  /** Applies the given fields (absent ones are kept, an empty key keeps the key) and rebuilds the abilities. */
  async update(body: UpdateChannelBody): Promise<ChannelRow> {
    let keyGiven = false;
    const row = await this.store.transaction(async (trx) => {
      const cur = await this.store.findForUpdate(trx, body.id);
      if (!cur) throw notFound('channel not found, refresh and retry', ErrorCode.ChannelNotFound);
      keyGiven = isNewKey(cur, body.key);
      const patch = this.patchFor(cur, body);
      await this.store.update(trx, cur.id, patch);
      const next = { ...cur, ...patch };
      await rebuildAbilities(trx, [next]);
      return next;
    });
    // A new key or address, or a channel enabled by hand, starts with a closed breaker (on every node).
    if (keyGiven || body.base_url !== undefined || body.status === 1) this.breakers?.reset(row.id);
    await this.changed();
    return row;
  }

  private patchFor(cur: ChannelRow, b: UpdateChannelBody): ChannelPatch {
    const p: ChannelPatch = {};
    const copy = [
      'name',
      'openai_organization',
      'test_model',
      'base_url',
      'model_mapping',
      'status_code_mapping',
      'setting',
      'param_override',
      'auto_ban',
      'priority',
      'weight',
      'tag',
      'model_prefix',
      'system_prompt',
      'max_input_tokens',
      'expired_time',
      'type',
      'settings',
      'header_override',
      'remark',
    ] as const;
    for (const f of copy) if (b[f] !== undefined) (p as Record<string, unknown>)[f] = b[f];
    if (b.models) p.models = b.models.join(',');
    if (b.group) p.group = joinGroups(b.group);
    if (p.model_mapping !== undefined) checkModelMapping(p.model_mapping);
    if (p.status_code_mapping !== undefined) checkStatusCodeMapping(p.status_code_mapping);
    checkChannelExtras(p);
    const type = b.type ?? cur.type;
    if (b.other !== undefined || b.type !== undefined)
      p.other = normalizeOther(this.providers, type, b.other ?? cur.other ?? '');
    const info = parseJsonObject<Partial<MultiKeyInfo>>(cur.channel_info, {});
    if (info.is_multi_key && this.providers.jsonKeys(type))
      throw coded(ErrorCode.ChannelMultiKeyUnavailable, `multi-key mode is not available for channel type ${type}`, {
        type,
      });
    let nextInfo: Partial<MultiKeyInfo> | undefined;
    if (isNewKey(cur, b.key)) {
      if (info.is_multi_key) {
        const given = splitKeyLines(b.key);
        checkKeys(this.providers, type, given);
        const keys = b.key_mode === 'append' ? [...new Set([...channelKeys(cur), ...given])] : [...new Set(given)];
        p.key = keys.join('\n');
        nextInfo =
          b.key_mode === 'append'
            ? { ...info }
            : {
                ...info,
                multi_key_status_list: {},
                multi_key_disabled_reason: {},
                multi_key_disabled_time: {},
                multi_key_polling_index: 0,
              };
        nextInfo.multi_key_size = keys.length;
      } else {
        p.key = singleKey(this.providers, type, b.key);
      }
    } else if (b.type !== undefined && b.type !== cur.type) {
      checkKeys(this.providers, type, channelKeys(cur));
    }
    if (b.multi_key_mode && info.is_multi_key) nextInfo = { ...(nextInfo ?? info), multi_key_mode: b.multi_key_mode };
    if (nextInfo) p.channel_info = JSON.stringify(nextInfo);
    if (b.status !== undefined && b.status !== cur.status) Object.assign(p, statusPatch({ ...cur, ...p }, b.status));
    return p;
  }

  /** Copies a channel (key, models, groups, settings) as a new one named name+suffix; returns its id. */
  async copy(id: number, suffix: string, resetBalance: boolean): Promise<number> {
    const src = await this.get(id);
    const { id: _id, ...fields } = src;
    const row: NewChannel = {
      ...fields,
      name: `${src.name}${suffix}`,
      created_time: nowSeconds(),
      test_time: 0,
      response_time: 0,
    };
    if (resetBalance) Object.assign(row, { balance: 0, balance_updated_time: 0, used_quota: 0 });
    const newId = await this.store.transaction(async (trx) => {
      const out = await this.store.insert(trx, row);
      await rebuildAbilities(trx, [{ ...row, id: out }]);
      return out;
    });
    await this.changed();
    return newId;
  }

  async remove(id: number): Promise<void> {
    const n = await this.removeMany([id]);
    if (n === 0) throw notFound('channel not found, refresh and retry', ErrorCode.ChannelNotFound);
  }

  /** Deletes the given channels and their abilities; returns how many existed. */
  async removeMany(ids: number[]): Promise<number> {
    const n = await this.store.transaction(async (trx) => {
      await deleteAbilities(trx, ids);
      return this.store.deleteMany(trx, ids);
    });
    for (const id of ids) this.breakers?.forget(id);
    if (n > 0) await this.changed();
    return n;
  }

  /** Deletes every disabled channel (status 2 or 3); returns the count. */
  async removeDisabled(): Promise<number> {
    return this.removeMany(await this.store.idsWhereStatusNot(1));
  }

  /** Rebuilds the abilities of every channel from the channels table; returns the number of channels. */
  async fixAbilities(): Promise<number> {
    const n = await this.store.transaction(async (trx) => rebuildAllAbilities(trx, await this.store.all(trx)));
    await this.changed();
    return n;
  }

  reportUpstreamError(channel: CachedChannel, keyIndex: number, httpStatus: number, message: string): Promise<void> {
    return this.status.reportUpstreamError(channel, keyIndex, httpStatus, message);
  }

  /** Auto-enable: a status-3 channel back to 1. A manually disabled channel (2) is never enabled here. */
  enableChannel(id: number): Promise<boolean> {
    return this.status.enableChannel(id);
  }

  /** Auto-disable: an enabled channel to status 3 with a reason. */
  autoDisableChannel(id: number, reason: string): Promise<boolean> {
    return this.status.autoDisable(id, reason);
  }

  /** A test met a transient failure: the channel's breaker opens for its cool-down (no status change). */
  tripBreaker(id: number): void {
    this.breakers?.trip(id);
  }

  /** Records a test's response time (ms), time and failure (undefined: passed); not a routing change, so no reload. */
  async recordTest(id: number, responseMs: number, error?: string): Promise<void> {
    await this.store.update(this.store.k, id, testPatch(await this.get(id), responseMs, error));
  }

  async recordBalance(id: number, balance: number): Promise<void> {
    await this.store.update(this.store.k, id, { balance, balance_updated_time: nowSeconds() });
  }
}
