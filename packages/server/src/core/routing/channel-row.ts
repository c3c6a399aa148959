import type { ChannelsTable } from '../../db/schema.js';
import type { Selectable } from 'kysely';

export type ChannelRow = Selectable<ChannelsTable>;

/** Multi-key state kept in channels.channel_info (JSON). */
export interface MultiKeyInfo {
  is_multi_key: boolean;
  multi_key_mode: 'random' | 'polling';
  /** Index → status for keys that are not enabled (2 manual, 3 auto-disabled). */
  multi_key_status_list: Record<string, number>;
  /** Index → reason of an auto-disable. */
  multi_key_disabled_reason?: Record<string, string>;
  /** Index → time (unix seconds) of an auto-disable. */
  multi_key_disabled_time?: Record<string, number>;
  multi_key_polling_index?: number;
  /** Number of keys (kept for display; the key text is authoritative). */
  multi_key_size?: number;
}

export function parseJsonObject<T extends object>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as T) : fallback;
  } catch {
    return fallback;
  }
}

export const splitList = (text: string | null | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Keys of a channel: one per line for multi-key channels, else the whole key field (it may contain | or -). */
export function channelKeys(row: Pick<ChannelRow, 'key' | 'channel_info'>): string[] {
  const info = parseJsonObject<Partial<MultiKeyInfo>>(row.channel_info, {});
  if (!info.is_multi_key) return [row.key.trim()];
  return row.key
    .split('\n')
    .map((k) => k.trim())
    .filter(Boolean);
}

/**
 * Resolves a chained model mapping (a→b, b→c gives a→c). Returns the final name, or an error for a cycle.
 */
export function resolveModelMapping(
  mapping: Record<string, string>,
  model: string,
): { model: string } | { error: string } {
  const seen = new Set<string>([model]);
  let current = model;
  for (;;) {
    const next = mapping[current];
    if (next === undefined || next === '' || next === current) return { model: current };
    if (seen.has(next)) return { error: `model mapping has a cycle: ${[...seen, next].join(' -> ')}` };
    seen.add(next);
    current = next;
  }
}
