import crypto from 'node:crypto';
import type { Db } from '../db/connect.js';
import { OFFSET_TABLES, zeroOffsets, type Offsets } from './context.js';
import type { SourceKind } from './detect.js';
import type { SourceDb } from './source.js';
import { num, text } from './values.js';

/** Options key prefix of import markers: which source was imported, with which id offsets. */
export const MARKER_PREFIX = 'tollway.import.';

/** A merge's user mapping as resolved against both databases (a re-run uses the same). */
export interface ResolvedUsers {
  /** Source id → target id. */
  merged: Record<string, number>;
  renamed: Record<string, string>;
  /** True once the merged users' quota was added to their target users (done once, with the marker). */
  credited?: boolean;
}

export interface ImportMarker {
  product: string;
  version: string;
  offsets: Offsets;
  /** Imported into a database that had its own users (its root stays the root). */
  merge: boolean;
  started_at: number;
  /** Source users merged into target users or renamed (a merge with a mapping). */
  users?: ResolvedUsers;
}

/** A source's identity that survives a move of its file or server: its product and its first user. */
export async function sourceFingerprint(src: SourceDb, kind: SourceKind): Promise<string> {
  const first = (await src.kysely
    .selectFrom('users')
    .select(['id', 'username', 'aff_code'])
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()) as Record<string, unknown> | undefined;
  const identity = first ? `${num(first.id)}|${text(first.username)}|${text(first.aff_code)}` : 'no users';
  return crypto.createHash('sha256').update(`${kind.product}|${identity}`).digest('hex').slice(0, 16);
}

export async function readMarker(dst: Db, fingerprint: string): Promise<ImportMarker | undefined> {
  const row = await dst.kysely
    .selectFrom('options')
    .select('value')
    .where('key', '=', MARKER_PREFIX + fingerprint)
    .executeTakeFirst();
  if (!row?.value) return undefined;
  const marker = JSON.parse(row.value) as ImportMarker;
  return { ...marker, offsets: { ...zeroOffsets(), ...marker.offsets } };
}

export async function writeMarker(dst: Db, fingerprint: string, marker: ImportMarker): Promise<void> {
  await dst.kysely
    .insertInto('options')
    .values({ key: MARKER_PREFIX + fingerprint, value: JSON.stringify(marker) })
    .execute();
}

/** True when the target holds users, channels or tokens. */
export async function targetHasData(dst: Db): Promise<boolean> {
  for (const table of ['users', 'channels', 'tokens'] as const) {
    if (await dst.kysely.selectFrom(table).select('id').limit(1).executeTakeFirst()) return true;
  }
  return false;
}

/** Merge offsets: every imported id lands past the target's largest id of its table. */
export async function mergeOffsets(dst: Db): Promise<Offsets> {
  const off = zeroOffsets();
  for (const table of OFFSET_TABLES) {
    const row = await dst.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.max('id').as('m'))
      .executeTakeFirst();
    off[table] = num(row?.m);
  }
  return off;
}
