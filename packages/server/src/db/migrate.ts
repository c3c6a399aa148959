import { Migrator, type Migration as KyselyMigration, type MigrationProvider } from 'kysely';
import type { Db } from './connect.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_gateway.js';
import * as m0004 from './migrations/0004_log_filters.js';
import * as m0006 from './migrations/0006_topups.js';
import * as m0005 from './migrations/0005_redemptions.js';
import * as m0007 from './migrations/0007_checkins_tasks.js';
import * as m0008 from './migrations/0008_quota_data.js';
import * as m0009 from './migrations/0009_messages.js';
import * as m0010 from './migrations/0010_user_identities.js';
import * as m0011 from './migrations/0011_quota_warnings.js';
import * as m0012 from './migrations/0012_sessions.js';
import * as m0013 from './migrations/0013_two_factor.js';
import * as m0014 from './migrations/0014_audit_logs.js';
import * as m0015 from './migrations/0015_secrets_at_rest.js';
import * as m0016 from './migrations/0016_task_relay.js';
import * as m0017 from './migrations/0017_task_billing.js';
import * as m0018 from './migrations/0018_rate_limits.js';
import * as m0019 from './migrations/0019_channel_fields.js';
import * as m0020 from './migrations/0020_model_registry.js';
import * as m0021 from './migrations/0021_token_cross_group_retry.js';
import * as m0022 from './migrations/0022_period_limits.js';
import * as m0023 from './migrations/0023_subscriptions.js';
import * as m0024 from './migrations/0024_session_origin.js';
import * as m0025 from './migrations/0025_passkeys.js';
import * as m0026 from './migrations/0026_custom_oauth.js';
import * as m0027 from './migrations/0027_token_concurrency_limit.js';
import * as m0028 from './migrations/0028_response_cache.js';
import * as m0029 from './migrations/0029_organizations.js';
import * as m0030 from './migrations/0030_mcp.js';
import * as m0031 from './migrations/0031_mcp_limits.js';
import * as m0032 from './migrations/0032_mcp_oauth.js';
import type { Migration } from './migrations/helpers.js';

/** All migrations in order; later issues append theirs here. */
const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_gateway': m0002,
  '0004_log_filters': m0004,
  '0006_topups': m0006,
  '0005_redemptions': m0005,
  '0007_checkins_tasks': m0007,
  '0008_quota_data': m0008,
  '0009_messages': m0009,
  '0010_user_identities': m0010,
  '0011_quota_warnings': m0011,
  '0012_sessions': m0012,
  '0013_two_factor': m0013,
  '0014_audit_logs': m0014,
  '0015_secrets_at_rest': m0015,
  '0016_task_relay': m0016,
  '0017_task_billing': m0017,
  '0018_rate_limits': m0018,
  '0019_channel_fields': m0019,
  '0020_model_registry': m0020,
  '0021_token_cross_group_retry': m0021,
  '0022_period_limits': m0022,
  '0023_subscriptions': m0023,
  '0024_session_origin': m0024,
  '0025_passkeys': m0025,
  '0026_custom_oauth': m0026,
  '0027_token_concurrency_limit': m0027,
  '0028_response_cache': m0028,
  '0029_organizations': m0029,
  '0030_mcp': m0030,
  '0031_mcp_limits': m0031,
  '0032_mcp_oauth': m0032,
};

/** The migrations' names, oldest first. */
export const migrationNames = Object.keys(migrations);

function migratorFor(db: Db): Migrator {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, KyselyMigration> = {};
      for (const [name, m] of Object.entries(migrations)) {
        out[name] = { up: (k) => m.up(k, db.dialect) };
      }
      return out;
    },
  };
  return new Migrator({
    db: db.kysely,
    provider,
    migrationTableName: 'tollway_migrations',
    migrationLockTableName: 'tollway_migrations_lock',
  });
}

/** Applies pending migrations; identical on every dialect. Throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  return applied(await migratorFor(db).migrateToLatest());
}

/** Applies pending migrations up to and including `name`: a database as an older version left it (tests). */
export async function migrateUpTo(db: Db, name: string): Promise<string[]> {
  return applied(await migratorFor(db).migrateTo(name));
}

function applied({ error, results }: Awaited<ReturnType<Migrator['migrateToLatest']>>): string[] {
  const failed = results?.find((r) => r.status === 'Error');
  if (error) throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
