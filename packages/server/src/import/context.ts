import type { SecretBox } from '../lib/secret-box.js';
import type { TableReport } from './report.js';

/** Tables whose ids an import may shift (merge into a database that already has rows). */
export const OFFSET_TABLES = [
  'users',
  'tokens',
  'channels',
  'redemptions',
  'top_ups',
  'logs',
  'midjourneys',
  'tasks',
  'quota_data',
  'vendors',
  'models',
  'checkins',
  'subscription_plans',
  'user_subscriptions',
  'subscription_orders',
] as const;
export type OffsetTable = (typeof OFFSET_TABLES)[number];
export type Offsets = Record<OffsetTable, number>;

/** Marker written to task rows the source already charged (or refunded): Tollway's task engine never applies them again. */
export const IMPORTED_BATCH = 'imported';

export interface MapContext {
  box: SecretBox;
  product: 'new-api' | 'one-api';
  /** Merging into a database with its own users (and its own root). */
  merging: boolean;
  off: Offsets;
  /** The abilities rebuilt from written channels (compared with the source's in the summary). */
  abilities: TableReport;
  /** Source channel id → name (logs name their channel). */
  channelNames: Map<number, string>;
  /** Source users merged into a target user (--merge-root, --merge-user): source id → target id. */
  mergedUsers: Map<number, number>;
  /** Source usernames imported under another name (--rename-user). */
  renamedUsers: Map<string, string>;
}

/** A source user reference in the target: a merged user's target id, else the id moved by the offset (0 stays 0). */
export function userRef(ctx: MapContext, v: unknown): number {
  const n = Number(v ?? 0) || 0;
  if (n <= 0) return n;
  return ctx.mergedUsers.get(n) ?? n + ctx.off.users;
}

export const zeroOffsets = (): Offsets => Object.fromEntries(OFFSET_TABLES.map((t) => [t, 0])) as Offsets;
