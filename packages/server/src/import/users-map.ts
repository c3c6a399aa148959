import { Role } from '@tollway/shared';
import type { Db } from '../db/connect.js';
import { BATCH } from './copy.js';
import { RefusedError } from './refused.js';
import { MARKER_PREFIX, type ImportMarker, type ResolvedUsers } from './marker.js';
import type { SourceDb } from './source.js';
import { num, text } from './values.js';

/** What the operator asked for the source's users on a merge (CLI: --merge-root, --merge-user, --rename-user). */
export interface UserMapping {
  /** The source's root is merged into the target's root. */
  mergeRoot?: boolean;
  /** Source username → target username: the source user's quota and rows go to that target user. */
  mergeUsers?: Record<string, string>;
  /** Source username → the username it is imported under. */
  renameUsers?: Record<string, string>;
}

/** Raised when the mapping names a user that is not there, or a source user would be dropped for its name. */
export class MappingError extends RefusedError {}

const HINT =
  'map it with --merge-root (the source root into the target root), --merge-user SOURCE=TARGET or --rename-user SOURCE=NEW (see docs/switching-from-new-api.md)';

async function userByName(k: SourceDb['kysely'], username: string) {
  return (await k
    .selectFrom('users')
    .select(['id', 'username', 'role', 'quota'])
    .where('username', '=', username)
    .orderBy('id')
    .executeTakeFirst()) as { id: unknown; username: unknown; role: unknown; quota: unknown } | undefined;
}

async function firstRoot(k: SourceDb['kysely']) {
  return (await k
    .selectFrom('users')
    .select(['id', 'username'])
    .where('role', '=', Role.Root)
    .orderBy('id')
    .executeTakeFirst()) as { id: unknown; username: unknown } | undefined;
}

/**
 * Resolves the operator's mapping on a merge, and refuses (before anything is written) when a source user's name
 * is taken in the target and nothing says what to do: a user, its quota and its keys are never dropped silently.
 */
export async function resolveUsers(src: SourceDb, target: Db, mapping: UserMapping): Promise<ResolvedUsers> {
  const out: ResolvedUsers = { merged: {}, renamed: { ...(mapping.renameUsers ?? {}) } };
  const merges = { ...(mapping.mergeUsers ?? {}) };
  if (mapping.mergeRoot) {
    const from = await firstRoot(src.kysely);
    const to = await firstRoot(target.kysely);
    if (!from) throw new MappingError('--merge-root: the source has no root user');
    if (!to) throw new MappingError('--merge-root: the target has no root user');
    merges[text(from.username)] = text(to.username);
  }
  for (const [from, to] of Object.entries(merges)) {
    const s = await userByName(src.kysely, from);
    if (!s) throw new MappingError(`no source user "${from}" to merge`);
    const t = await userByName(target.kysely, to);
    if (!t) throw new MappingError(`no target user "${to}" to merge "${from}" into`);
    out.merged[String(num(s.id))] = num(t.id);
  }
  for (const [from, to] of Object.entries(out.renamed)) {
    if (!(await userByName(src.kysely, from))) throw new MappingError(`no source user "${from}" to rename`);
    if (await userByName(target.kysely, to))
      throw new MappingError(`--rename-user ${from}=${to}: "${to}" is taken in the target too`);
  }
  const clashes: string[] = [];
  let last = -1;
  for (;;) {
    const rows = (await src.kysely
      .selectFrom('users')
      .select(['id', 'username', 'quota'])
      .where('id', '>', last)
      .orderBy('id')
      .limit(BATCH)
      .execute()) as { id: unknown; username: unknown; quota: unknown }[];
    if (rows.length === 0) break;
    last = num(rows.at(-1)!.id);
    const named = rows
      .filter((r) => out.merged[String(num(r.id))] === undefined)
      .map((r) => ({ ...r, name: out.renamed[text(r.username)] ?? text(r.username) }));
    if (named.length === 0) continue;
    const taken = (await target.kysely
      .selectFrom('users')
      .select(['id', 'username'])
      .where(
        'username',
        'in',
        named.map((r) => r.name),
      )
      .execute()) as { id: number; username: string }[];
    const byName = new Map(taken.map((t) => [t.username.toLowerCase(), t.id]));
    for (const r of named) {
      const owner = byName.get(r.name.toLowerCase());
      if (owner !== undefined)
        clashes.push(
          `source user id ${num(r.id)} "${r.name}" (quota ${num(r.quota)}): the name is target user ${owner}'s`,
        );
    }
  }
  if (clashes.length > 0)
    throw new MappingError(
      `${clashes.length} source user(s) have a name taken in the target: ${clashes.join('; ')}; ${HINT}`,
    );
  return out;
}

/**
 * Adds each merged source user's quota, used quota and request count to its target user, once: in the transaction
 * that records it in the import marker (a re-run finds `credited` and adds nothing). Returns the lines to report.
 */
export async function creditMergedUsers(
  src: SourceDb,
  target: Db,
  fingerprint: string,
  marker: ImportMarker,
): Promise<string[]> {
  const users = marker.users;
  if (!users || users.credited || Object.keys(users.merged).length === 0) return [];
  const lines: string[] = [];
  await target.kysely.transaction().execute(async (trx) => {
    for (const [sourceId, targetId] of Object.entries(users.merged)) {
      const s = (await src.kysely
        .selectFrom('users')
        .select(['username', 'quota', 'used_quota', 'request_count'])
        .where('id', '=', Number(sourceId))
        .executeTakeFirstOrThrow()) as Record<string, unknown>;
      const [quota, used, requests] = [num(s.quota), num(s.used_quota), num(s.request_count)];
      await trx
        .updateTable('users')
        .set((eb) => ({
          quota: eb('quota', '+', quota),
          used_quota: eb('used_quota', '+', used),
          request_count: eb('request_count', '+', requests),
        }))
        .where('id', '=', targetId)
        .execute();
      lines.push(
        `merged source user id ${sourceId} "${text(s.username)}" into target user ${targetId}: quota +${quota}, used_quota +${used}`,
      );
    }
    const next: ImportMarker = { ...marker, users: { ...users, credited: true } };
    await trx
      .updateTable('options')
      .set({ value: JSON.stringify(next) })
      .where('key', '=', MARKER_PREFIX + fingerprint)
      .execute();
  });
  return lines;
}
