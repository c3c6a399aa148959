import type { Db } from '../db/connect.js';
import type { TableSpec } from './copy.js';
import { userRef, type MapContext } from './context.js';
import type { SourceDb } from './source.js';
import { deletedAt, flag, num, text } from './values.js';

const MS_PER_SECOND = 1000;

/** A GORM time column as Unix seconds (0 when empty). */
function seconds(v: unknown): number {
  if (v === null || v === undefined || v === '') return 0;
  const ms = v instanceof Date ? v.getTime() : Date.parse(String(v));
  return Number.isNaN(ms) ? 0 : Math.floor(ms / MS_PER_SECOND);
}

/** Source user ids read per query when comparing two-factor secrets. */
const SECRET_BATCH = 500;
/** A bcrypt hash (Go writes $2a$): what new-api stores for a backup code. */
const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$/;

/**
 * new-api's two-factor settings (two_fas): the same base32 TOTP secret (SHA-1, 6 digits, 30 s, as Tollway's),
 * sealed as the two-factor store seals it, so users keep their authenticator.
 */
export function twoFactorSpec(ctx: MapContext): TableSpec {
  return {
    source: 'two_fas',
    target: 'two_factor',
    key: 'user_id',
    requires: { column: 'user_id', table: 'users', what: 'user' },
    map(r) {
      if (deletedAt(r.deleted_at)) return 'deleted in the source';
      const secret = text(r.secret).trim();
      if (!secret) return 'no secret';
      const enabled = flag(r.is_enabled);
      return {
        user_id: userRef(ctx, r.user_id),
        secret: ctx.box.seal(secret),
        enabled,
        last_used_step: 0,
        created_at: seconds(r.created_at),
        enabled_at: enabled ? seconds(r.updated_at) || seconds(r.created_at) : 0,
      };
    },
  };
}

/**
 * The source users whose two-factor secret is the target's after the copy (the target user's row holds the same
 * secret): their backup codes belong to that authenticator. A user merged into a Tollway user who keeps a 2FA of
 * their own is not among them.
 */
export async function usersWithSourceTwoFactor(src: SourceDb, target: Db, ctx: MapContext): Promise<Set<number>> {
  const out = new Set<number>();
  if (!src.tables.has('two_fas')) return out;
  const rows = (await src.kysely.selectFrom('two_fas').select(['user_id', 'secret', 'deleted_at']).execute()) as {
    user_id: unknown;
    secret: unknown;
    deleted_at: unknown;
  }[];
  const live = rows.filter((r) => !deletedAt(r.deleted_at) && text(r.secret).trim());
  for (let i = 0; i < live.length; i += SECRET_BATCH) {
    const chunk = live.slice(i, i + SECRET_BATCH);
    const held = await target.kysely
      .selectFrom('two_factor')
      .select(['user_id', 'secret'])
      .where(
        'user_id',
        'in',
        chunk.map((r) => userRef(ctx, r.user_id)),
      )
      .execute();
    const secretOf = new Map(held.map((h) => [h.user_id, h.secret]));
    for (const r of chunk) {
      const stored = secretOf.get(userRef(ctx, r.user_id));
      if (stored !== undefined && ctx.box.open(stored) === text(r.secret).trim()) out.add(num(r.user_id));
    }
  }
  return out;
}

/**
 * new-api's unused backup codes (two_fa_backup_codes), kept as its bcrypt hashes: the two-factor check verifies
 * them by new-api's scheme and spends each once, as it does Tollway's own. Only codes of users whose source
 * authenticator was carried (`carried`, source ids); the hash is the key, so a re-run adds none twice.
 */
export function twoFactorBackupCodesSpec(ctx: MapContext, carried: Set<number>): TableSpec {
  return {
    source: 'two_fa_backup_codes',
    target: 'two_factor_backup_codes',
    key: 'code_hash',
    map(r) {
      if (deletedAt(r.deleted_at)) return 'replaced by newer codes in the source';
      if (flag(r.is_used)) return 'used in the source';
      const hash = text(r.code_hash).trim();
      if (!BCRYPT_HASH.test(hash)) return 'not a bcrypt hash';
      if (!carried.has(num(r.user_id)))
        return "its user's two-factor secret was not carried (none in the source, or the Tollway user keeps their own)";
      return { user_id: userRef(ctx, r.user_id), code_hash: hash, used_at: 0 };
    },
  };
}
