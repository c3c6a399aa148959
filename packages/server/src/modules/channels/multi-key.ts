import { ErrorCode } from '@tollway/shared';
import { z } from 'zod';
import { coded, notFound } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { channelKeys, parseJsonObject, type ChannelRow, type MultiKeyInfo } from '../../core/routing/channel-row.js';
import type { ChannelPatch, ChannelsStore } from './store.js';
import { maskKey } from './view.js';

/** The actions of POST /api/channel/multi_key/manage (new-api's names). */
export const MULTI_KEY_ACTIONS = [
  'get_key_status',
  'disable_key',
  'enable_key',
  'enable_all_keys',
  'disable_all_keys',
  'delete_key',
  'delete_disabled_keys',
] as const;
export type MultiKeyAction = (typeof MULTI_KEY_ACTIONS)[number];

/** Key status values: enabled, disabled by an administrator, disabled automatically. */
const ENABLED = 1;
const MANUAL = 2;
const AUTO = 3;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

export const multiKeyManageBody = z.object({
  channel_id: z.number().int().positive(),
  action: z.enum(MULTI_KEY_ACTIONS),
  /** disable_key, enable_key and delete_key. */
  key_index: z.number().int().nullable().optional(),
  /** get_key_status: paging (page from 1) and a status filter (1, 2 or 3; absent: all). */
  page: z.number().int().optional(),
  page_size: z.number().int().optional(),
  status: z.number().int().min(ENABLED).max(AUTO).nullable().optional(),
});
export type MultiKeyManageBody = z.infer<typeof multiKeyManageBody>;

const keyStatus = z.object({
  index: z.number().int(),
  status: z.number().int(),
  disabled_time: z.number().int().optional(),
  reason: z.string().optional(),
  /** The key masked (first 3 and last 4 characters): never the whole key. */
  key_preview: z.string(),
});
export const multiKeyStatusPage = z.object({
  keys: z.array(keyStatus),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  total_pages: z.number().int(),
  enabled_count: z.number().int(),
  manual_disabled_count: z.number().int(),
  auto_disabled_count: z.number().int(),
});
export type MultiKeyStatusPage = z.infer<typeof multiKeyStatusPage>;

/** A manage call's answer: its message (counts in it, as new-api's) and, for some actions, data. */
export interface MultiKeyResult {
  message: string;
  data?: MultiKeyStatusPage | number;
}

interface KeyState {
  keys: string[];
  status: Record<string, number>;
  reason: Record<string, string>;
  time: Record<string, number>;
}

const stateOf = (row: ChannelRow, info: Partial<MultiKeyInfo>): KeyState => ({
  keys: channelKeys(row),
  status: { ...(info.multi_key_status_list ?? {}) },
  reason: { ...(info.multi_key_disabled_reason ?? {}) },
  time: { ...(info.multi_key_disabled_time ?? {}) },
});

const statusAt = (s: KeyState, i: number): number => s.status[String(i)] ?? ENABLED;

/** The page of key states get_key_status answers; the counts are over every key, whatever the filter. */
export function keyStatusPage(s: KeyState, body: MultiKeyManageBody): MultiKeyStatusPage {
  const counts = { [ENABLED]: 0, [MANUAL]: 0, [AUTO]: 0 } as Record<number, number>;
  const all = s.keys.map((key, index) => {
    const status = statusAt(s, index);
    counts[status] = (counts[status] ?? 0) + 1;
    const item: z.infer<typeof keyStatus> = { index, status, key_preview: maskKey(key) };
    if (status !== ENABLED) {
      const t = s.time[String(index)];
      const r = s.reason[String(index)];
      if (t) item.disabled_time = t;
      if (r) item.reason = r;
    }
    return item;
  });
  const filtered = body.status == null ? all : all.filter((k) => k.status === body.status);
  const pageSize = Math.min(body.page_size && body.page_size > 0 ? body.page_size : DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const totalPages = Math.max(1, Math.ceil(filtered.length / pageSize));
  const page = Math.min(Math.max(body.page ?? 1, 1), totalPages);
  return {
    keys: filtered.slice((page - 1) * pageSize, page * pageSize),
    total: filtered.length,
    page,
    page_size: pageSize,
    total_pages: totalPages,
    enabled_count: counts[ENABLED] ?? 0,
    manual_disabled_count: counts[MANUAL] ?? 0,
    auto_disabled_count: counts[AUTO] ?? 0,
  };
}

const forget = (s: KeyState, i: string) => {
  delete s.status[i];
  delete s.reason[i];
  delete s.time[i];
};

/** Keeps the keys `keep` says to keep, their states renumbered; returns how many were dropped. */
function dropKeys(s: KeyState, keep: (i: number) => boolean): number {
  const next: KeyState = { keys: [], status: {}, reason: {}, time: {} };
  s.keys.forEach((key, i) => {
    if (!keep(i)) return;
    const n = String(next.keys.length);
    next.keys.push(key);
    const st = statusAt(s, i);
    if (st !== ENABLED) next.status[n] = st;
    const r = s.reason[String(i)];
    const t = s.time[String(i)];
    if (r) next.reason[n] = r;
    if (t) next.time[n] = t;
  });
  const dropped = s.keys.length - next.keys.length;
  Object.assign(s, next);
  return dropped;
}

function indexOf(s: KeyState, body: MultiKeyManageBody): string {
  const i = body.key_index;
  if (i === undefined || i === null) throw coded(ErrorCode.MultiKeyIndexRequired, 'key_index: which key is not given');
  if (i < 0 || i >= s.keys.length)
    throw coded(ErrorCode.MultiKeyIndexOutOfRange, `key_index: ${i} is out of range (0..${s.keys.length - 1})`, {
      index: i,
      size: s.keys.length,
    });
  return String(i);
}

/** Applies a changing action to the state; returns its message and data. */
function change(s: KeyState, body: MultiKeyManageBody): MultiKeyResult {
  switch (body.action) {
    case 'disable_key': {
      const i = indexOf(s, body);
      s.status[i] = MANUAL;
      s.time[i] = nowSeconds();
      delete s.reason[i];
      return { message: 'key disabled' };
    }
    case 'enable_key':
      forget(s, indexOf(s, body));
      return { message: 'key enabled' };
    case 'enable_all_keys': {
      const n = Object.keys(s.status).length;
      Object.assign(s, { status: {}, reason: {}, time: {} });
      return { message: `${n} keys enabled`, data: n };
    }
    case 'disable_all_keys': {
      let n = 0;
      const now = nowSeconds();
      s.keys.forEach((_, i) => {
        if (statusAt(s, i) !== ENABLED) return;
        s.status[String(i)] = MANUAL;
        s.time[String(i)] = now;
        n++;
      });
      if (n === 0) throw coded(ErrorCode.MultiKeyNoneEnabled, 'no enabled key to disable');
      return { message: `${n} keys disabled`, data: n };
    }
    case 'delete_key': {
      const i = Number(indexOf(s, body));
      if (s.keys.length === 1) throw coded(ErrorCode.MultiKeyLastKey, 'the last key of a channel cannot be deleted');
      dropKeys(s, (k) => k !== i);
      return { message: 'key deleted' };
    }
    case 'delete_disabled_keys': {
      const n = dropKeys(s, (k) => statusAt(s, k) !== AUTO);
      if (n === 0) throw coded(ErrorCode.MultiKeyNoneAutoDisabled, 'no automatically disabled key to delete');
      if (s.keys.length === 0)
        throw coded(ErrorCode.MultiKeyLastKey, 'every key is automatically disabled; the last key cannot be deleted');
      return { message: `${n} automatically disabled keys deleted`, data: n };
    }
    default:
      throw new Error(`not a changing action: ${body.action}`);
  }
}

/**
 * The keys of a multi-key channel one by one (new-api's multi_key/manage): their state list in channel_info is
 * what the relay's key choice reads, so every change is written with a reload of the routing cache. Keys are
 * shown masked only.
 */
export class MultiKeyManager {
  constructor(
    private readonly store: ChannelsStore,
    private readonly changed: () => Promise<void>,
  ) {}

  private static infoOf(row: ChannelRow | undefined): Partial<MultiKeyInfo> {
    if (!row) throw notFound('channel not found, refresh and retry', ErrorCode.ChannelNotFound);
    const info = parseJsonObject<Partial<MultiKeyInfo>>(row.channel_info, {});
    if (!info.is_multi_key) throw coded(ErrorCode.MultiKeyNotMulti, 'this channel is not in multi-key mode');
    return info;
  }

  async manage(body: MultiKeyManageBody): Promise<MultiKeyResult> {
    if (body.action === 'get_key_status') {
      const row = await this.store.find(body.channel_id);
      const info = MultiKeyManager.infoOf(row);
      return { message: '', data: keyStatusPage(stateOf(row!, info), body) };
    }
    const result = await this.store.transaction(async (trx) => {
      const row = await this.store.findForUpdate(trx, body.channel_id);
      const info = MultiKeyManager.infoOf(row);
      const s = stateOf(row!, info);
      const before = s.keys.length;
      const out = change(s, body);
      const next: Partial<MultiKeyInfo> = {
        ...info,
        multi_key_status_list: s.status,
        multi_key_disabled_reason: s.reason,
        multi_key_disabled_time: s.time,
        multi_key_size: s.keys.length,
      };
      if ((next.multi_key_polling_index ?? 0) >= s.keys.length) next.multi_key_polling_index = 0;
      const patch: ChannelPatch = { channel_info: JSON.stringify(next) };
      if (s.keys.length !== before) patch.key = s.keys.join('\n');
      await this.store.update(trx, row!.id, patch);
      return out;
    });
    await this.changed();
    return result;
  }
}

export const multiKeysOf = perContext((ctx) => new MultiKeyManager(ctx.channels.store, () => ctx.channels.changed()));
