import type { TableSpec } from './copy.js';
import { userRef, type MapContext } from './context.js';
import { deletedAt, flag, num, text } from './values.js';

const MS_PER_SECOND = 1000;

/** A GORM time column as Unix seconds (0 when empty). */
function seconds(v: unknown): number {
  if (v === null || v === undefined || v === '') return 0;
  const ms = v instanceof Date ? v.getTime() : Date.parse(String(v));
  return Number.isNaN(ms) ? 0 : Math.floor(ms / MS_PER_SECOND);
}

/**
 * new-api's two-factor settings (two_fas): the same base32 TOTP secret (SHA-1, 6 digits, 30 s, as Tollway's),
 * sealed as the two-factor store seals it, so users keep their authenticator. Backup codes are not carried:
 * new-api hashes them with bcrypt, Tollway with scrypt; users make new ones.
 */
export function twoFactorSpec(ctx: MapContext): TableSpec {
  return {
    source: 'two_fas',
    target: 'two_factor',
    key: 'user_id',
    requires: { column: 'user_id', table: 'users', what: 'user' },
    map(r, report) {
      if (deletedAt(r.deleted_at)) return 'deleted in the source';
      const secret = text(r.secret).trim();
      if (!secret) return 'no secret';
      const enabled = flag(r.is_enabled);
      if (enabled)
        report.note(
          "two_fa_backup_codes: new-api's bcrypt-hashed backup codes are not carried; the user makes new ones",
          `user ${num(r.user_id)}`,
        );
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
