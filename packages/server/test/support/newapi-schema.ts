import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../../src/db/connect.js';

/**
 * new-api's and one-api's tables as GORM's AutoMigrate creates them from their model/*.go structs, rendered per
 * dialect: Go `int` is bigint on PostgreSQL and MySQL, `bool` is boolean / tinyint(1), an indexed Go string
 * is varchar(191) on MySQL and text elsewhere, gorm.DeletedAt a nullable datetime, `type:json` JSON.
 */
/** Any database handle: the source's tables are not Tollway's. */

export type AnyKysely = Kysely<any>;

type Kind =
  | 'pk'
  | 'int'
  | 'bigint'
  | 'bool'
  | 'float'
  | 'str'
  | 'istr'
  | 'text'
  | 'datetime'
  | 'json'
  | `varchar(${number})`
  | `char(${number})`
  | `decimal(${number},${number})`;
type Column = [name: string, kind: Kind, extra?: string];
export type Table = { columns: Column[]; primary?: string[]; unique?: string[] };

function render(dialect: DialectName, kind: Kind): string {
  const pg = dialect === 'postgres';
  const my = dialect === 'mysql';
  switch (kind) {
    case 'pk':
      return pg
        ? 'bigserial PRIMARY KEY'
        : my
          ? 'bigint AUTO_INCREMENT PRIMARY KEY'
          : 'integer PRIMARY KEY AUTOINCREMENT';
    case 'int':
    case 'bigint':
      return pg || my ? 'bigint' : 'integer';
    case 'bool':
      return pg ? 'boolean' : my ? 'tinyint(1)' : 'numeric';
    case 'float':
      return pg ? 'decimal' : my ? 'double' : 'real';
    case 'str':
      return my ? 'longtext' : 'text';
    case 'istr':
      return my ? 'varchar(191)' : 'text';
    case 'text':
      return my ? 'text' : 'text';
    case 'datetime':
      return pg ? 'timestamptz' : my ? 'datetime(3)' : 'datetime';
    case 'json':
      return pg || my ? 'json' : 'JSON';
    default:
      return kind;
  }
}

const q = (dialect: DialectName, name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);

/** new-api (QuantumNous/new-api, current model/*.go). */
export const NEW_API: Record<string, Table> = {
  users: {
    columns: [
      ['id', 'pk'],
      ['username', 'istr'],
      ['password', 'str', 'NOT NULL'],
      ['display_name', 'istr'],
      ['role', 'int', 'DEFAULT 1'],
      ['status', 'int', 'DEFAULT 1'],
      ['email', 'istr'],
      ['github_id', 'istr'],
      ['discord_id', 'istr'],
      ['oidc_id', 'istr'],
      ['wechat_id', 'istr'],
      ['telegram_id', 'istr'],
      ['access_token', 'char(32)'],
      ['quota', 'int', 'DEFAULT 0'],
      ['used_quota', 'int', 'DEFAULT 0'],
      ['request_count', 'int', 'DEFAULT 0'],
      ['group', 'varchar(64)', "DEFAULT 'default'"],
      ['aff_code', 'varchar(32)'],
      ['aff_count', 'int', 'DEFAULT 0'],
      ['aff_quota', 'int', 'DEFAULT 0'],
      ['aff_history', 'int', 'DEFAULT 0'],
      ['inviter_id', 'int'],
      ['invite_rebate_eligible', 'bool', 'DEFAULT false'],
      ['deleted_at', 'datetime'],
      ['linux_do_id', 'istr'],
      ['setting', 'text'],
      ['remark', 'varchar(255)'],
      ['stripe_customer', 'varchar(64)'],
      ['created_at', 'bigint'],
      ['last_login_at', 'bigint', 'DEFAULT 0'],
      ['auth_version', 'bigint', 'NOT NULL DEFAULT 1'],
    ],
    unique: ['username', 'access_token', 'aff_code'],
  },
  tokens: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['key', 'varchar(128)'],
      ['status', 'int', 'DEFAULT 1'],
      ['name', 'istr'],
      ['created_time', 'bigint'],
      ['accessed_time', 'bigint'],
      ['expired_time', 'bigint', 'DEFAULT -1'],
      ['remain_quota', 'int', 'DEFAULT 0'],
      ['unlimited_quota', 'bool'],
      ['model_limits_enabled', 'bool'],
      ['model_limits', 'text'],
      ['allow_ips', 'str'],
      ['used_quota', 'int', 'DEFAULT 0'],
      ['group', 'str'],
      ['cross_group_retry', 'bool'],
      ['billing_type', 'int', 'DEFAULT 0'],
      ['deleted_at', 'datetime'],
    ],
    unique: ['key'],
  },
  channels: {
    columns: [
      ['id', 'pk'],
      ['type', 'int', 'DEFAULT 0'],
      ['key', 'str', 'NOT NULL'],
      ['openai_organization', 'str'],
      ['test_model', 'str'],
      ['status', 'int', 'DEFAULT 1'],
      ['name', 'istr'],
      ['weight', 'bigint', 'DEFAULT 0'],
      ['created_time', 'bigint'],
      ['test_time', 'bigint'],
      ['response_time', 'int'],
      ['base_url', 'str'],
      ['other', 'str'],
      ['balance', 'float'],
      ['balance_updated_time', 'bigint'],
      ['models', 'str'],
      ['group', 'varchar(64)', "DEFAULT 'default'"],
      ['used_quota', 'bigint', 'DEFAULT 0'],
      ['model_mapping', 'text'],
      ['status_code_mapping', 'varchar(1024)'],
      ['priority', 'bigint', 'DEFAULT 0'],
      ['auto_ban', 'int', 'DEFAULT 1'],
      ['need_reconcile', 'int', 'DEFAULT 0'],
      ['other_info', 'str'],
      ['tag', 'istr'],
      ['setting', 'text'],
      ['param_override', 'text'],
      ['header_override', 'text'],
      ['remark', 'varchar(255)'],
      ['channel_info', 'json'],
      ['settings', 'str'],
    ],
  },
  abilities: {
    columns: [
      ['group', 'varchar(64)', 'NOT NULL'],
      ['model', 'varchar(255)', 'NOT NULL'],
      ['channel_id', 'int', 'NOT NULL'],
      ['enabled', 'bool'],
      ['priority', 'bigint', 'DEFAULT 0'],
      ['weight', 'bigint', 'DEFAULT 0'],
      ['tag', 'istr'],
    ],
    primary: ['group', 'model', 'channel_id'],
  },
  options: {
    columns: [
      ['key', 'varchar(191)', 'PRIMARY KEY'],
      ['value', 'str'],
    ],
  },
  redemptions: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['key', 'char(32)'],
      ['status', 'int', 'DEFAULT 1'],
      ['name', 'istr'],
      ['quota', 'int', 'DEFAULT 100'],
      ['created_time', 'bigint'],
      ['redeemed_time', 'bigint'],
      ['used_user_id', 'int'],
      ['deleted_at', 'datetime'],
      ['expired_time', 'bigint'],
    ],
    unique: ['key'],
  },
  top_ups: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['amount', 'bigint'],
      ['money', 'float'],
      ['trade_no', 'varchar(255)'],
      ['payment_method', 'varchar(50)'],
      ['create_time', 'bigint'],
      ['complete_time', 'bigint'],
      ['status', 'str'],
    ],
    unique: ['trade_no'],
  },
  logs: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['created_at', 'bigint'],
      ['type', 'int'],
      ['content', 'str'],
      ['username', 'istr', "DEFAULT ''"],
      ['token_name', 'istr', "DEFAULT ''"],
      ['model_name', 'istr', "DEFAULT ''"],
      ['quota', 'int', 'DEFAULT 0'],
      ['prompt_tokens', 'int', 'DEFAULT 0'],
      ['completion_tokens', 'int', 'DEFAULT 0'],
      ['use_time', 'int', 'DEFAULT 0'],
      ['is_stream', 'bool'],
      ['channel_id', 'int'],
      ['token_id', 'int', 'DEFAULT 0'],
      ['group', 'istr'],
      ['ip', 'istr', "DEFAULT ''"],
      ['request_id', 'varchar(64)', "DEFAULT ''"],
      ['other', 'str'],
    ],
  },
  midjourneys: {
    columns: [
      ['id', 'pk'],
      ['code', 'int'],
      ['user_id', 'int'],
      ['action', 'varchar(40)'],
      ['mj_id', 'istr'],
      ['prompt', 'str'],
      ['prompt_en', 'str'],
      ['description', 'str'],
      ['state', 'str'],
      ['submit_time', 'bigint'],
      ['start_time', 'bigint'],
      ['finish_time', 'bigint'],
      ['image_url', 'str'],
      ['video_url', 'str'],
      ['video_urls', 'str'],
      ['status', 'varchar(20)'],
      ['progress', 'varchar(30)'],
      ['fail_reason', 'str'],
      ['channel_id', 'int'],
      ['quota', 'int'],
      ['buttons', 'str'],
      ['properties', 'str'],
    ],
  },
  tasks: {
    columns: [
      ['id', 'pk'],
      ['created_at', 'bigint'],
      ['updated_at', 'bigint'],
      ['task_id', 'varchar(191)'],
      ['platform', 'varchar(30)'],
      ['user_id', 'int'],
      ['group', 'varchar(50)'],
      ['channel_id', 'int'],
      ['quota', 'int'],
      ['action', 'varchar(40)'],
      ['status', 'varchar(20)'],
      ['fail_reason', 'str'],
      ['submit_time', 'bigint'],
      ['start_time', 'bigint'],
      ['finish_time', 'bigint'],
      ['progress', 'varchar(20)'],
      ['properties', 'json'],
      ['private_data', 'json'],
      ['data', 'json'],
    ],
  },
  quota_data: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['username', 'varchar(64)', "DEFAULT ''"],
      ['model_name', 'varchar(64)', "DEFAULT ''"],
      ['created_at', 'bigint'],
      ['token_used', 'int', 'DEFAULT 0'],
      ['count', 'int', 'DEFAULT 0'],
      ['quota', 'int', 'DEFAULT 0'],
    ],
  },
  two_fas: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int', 'NOT NULL'],
      ['secret', 'varchar(255)', 'NOT NULL'],
      ['is_enabled', 'bool'],
      ['failed_attempts', 'int', 'DEFAULT 0'],
      ['locked_until', 'datetime'],
      ['last_used_at', 'datetime'],
      ['created_at', 'datetime'],
      ['updated_at', 'datetime'],
      ['deleted_at', 'datetime'],
    ],
    unique: ['user_id'],
  },
  two_fa_backup_codes: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int', 'NOT NULL'],
      ['code_hash', 'varchar(255)', 'NOT NULL'],
      ['is_used', 'bool'],
      ['used_at', 'datetime'],
      ['created_at', 'datetime'],
      ['deleted_at', 'datetime'],
    ],
  },
  // model/checkin.go (the unique index on user_id + checkin_date is left out: one-column uniques only here).
  checkins: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int', 'NOT NULL'],
      ['checkin_date', 'varchar(10)', 'NOT NULL'],
      ['quota_awarded', 'int', 'NOT NULL'],
      ['created_at', 'bigint'],
    ],
  },
  setups: {
    columns: [
      ['id', 'pk'],
      ['version', 'varchar(50)'],
      ['initialized_at', 'bigint'],
    ],
  },
  vendors: {
    columns: [
      ['id', 'pk'],
      ['name', 'varchar(128)', 'NOT NULL'],
      ['description', 'text'],
      ['icon', 'varchar(128)'],
      ['status', 'int', 'DEFAULT 1'],
      ['created_time', 'bigint'],
      ['updated_time', 'bigint'],
      ['deleted_at', 'datetime'],
    ],
  },
  models: {
    columns: [
      ['id', 'pk'],
      ['model_name', 'varchar(128)', 'NOT NULL'],
      ['description', 'text'],
      ['icon', 'varchar(128)'],
      ['tags', 'varchar(255)'],
      ['vendor_id', 'int'],
      ['endpoints', 'text'],
      ['status', 'int', 'DEFAULT 1'],
      ['sync_official', 'int', 'DEFAULT 1'],
      ['created_time', 'bigint'],
      ['updated_time', 'bigint'],
      ['deleted_at', 'datetime'],
      ['name_rule', 'int', 'DEFAULT 0'],
    ],
  },
};

/** one-api (songquanpeng/one-api model/*.go): no tasks, midjourneys, setups or top-ups; tokens limit models and subnets. */
export const ONE_API: Record<string, Table> = {
  users: {
    columns: [
      ['id', 'pk'],
      ['username', 'istr'],
      ['password', 'str', 'NOT NULL'],
      ['display_name', 'istr'],
      ['role', 'int', 'DEFAULT 1'],
      ['status', 'int', 'DEFAULT 1'],
      ['email', 'istr'],
      ['github_id', 'istr'],
      ['wechat_id', 'istr'],
      ['lark_id', 'istr'],
      ['oidc_id', 'istr'],
      ['access_token', 'char(32)'],
      ['quota', 'bigint', 'DEFAULT 0'],
      ['used_quota', 'bigint', 'DEFAULT 0'],
      ['request_count', 'int', 'DEFAULT 0'],
      ['group', 'varchar(32)', "DEFAULT 'default'"],
      ['aff_code', 'varchar(32)'],
      ['inviter_id', 'int'],
    ],
    unique: ['username', 'access_token', 'aff_code'],
  },
  tokens: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['key', 'char(48)'],
      ['status', 'int', 'DEFAULT 1'],
      ['name', 'istr'],
      ['created_time', 'bigint'],
      ['accessed_time', 'bigint'],
      ['expired_time', 'bigint', 'DEFAULT -1'],
      ['remain_quota', 'bigint', 'DEFAULT 0'],
      ['unlimited_quota', 'bool', 'DEFAULT false'],
      ['used_quota', 'bigint', 'DEFAULT 0'],
      ['models', 'text'],
      ['subnet', 'str'],
    ],
    unique: ['key'],
  },
  channels: {
    columns: [
      ['id', 'pk'],
      ['type', 'int', 'DEFAULT 0'],
      ['key', 'text'],
      ['status', 'int', 'DEFAULT 1'],
      ['name', 'istr'],
      ['weight', 'bigint', 'DEFAULT 0'],
      ['created_time', 'bigint'],
      ['test_time', 'bigint'],
      ['response_time', 'int'],
      ['base_url', 'str'],
      ['other', 'text'],
      ['balance', 'float'],
      ['balance_updated_time', 'bigint'],
      ['models', 'str'],
      ['group', 'varchar(32)', "DEFAULT 'default'"],
      ['used_quota', 'bigint', 'DEFAULT 0'],
      ['model_mapping', 'varchar(1024)'],
      ['priority', 'bigint', 'DEFAULT 0'],
      ['config', 'str'],
      ['system_prompt', 'text'],
    ],
  },
  abilities: {
    columns: [
      ['group', 'varchar(32)', 'NOT NULL'],
      ['model', 'varchar(255)', 'NOT NULL'],
      ['channel_id', 'int', 'NOT NULL'],
      ['enabled', 'bool'],
      ['priority', 'bigint', 'DEFAULT 0'],
    ],
    primary: ['group', 'model', 'channel_id'],
  },
  options: NEW_API.options!,
  redemptions: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['key', 'char(32)'],
      ['status', 'int', 'DEFAULT 1'],
      ['name', 'istr'],
      ['quota', 'bigint', 'DEFAULT 100'],
      ['created_time', 'bigint'],
      ['redeemed_time', 'bigint'],
    ],
    unique: ['key'],
  },
  logs: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['created_at', 'bigint'],
      ['type', 'int'],
      ['content', 'str'],
      ['username', 'istr', "DEFAULT ''"],
      ['token_name', 'istr', "DEFAULT ''"],
      ['model_name', 'istr', "DEFAULT ''"],
      ['quota', 'int', 'DEFAULT 0'],
      ['prompt_tokens', 'int', 'DEFAULT 0'],
      ['completion_tokens', 'int', 'DEFAULT 0'],
      ['channel_id', 'int'],
      ['request_id', 'istr', "DEFAULT ''"],
      ['elapsed_time', 'bigint', 'DEFAULT 0'],
      ['is_stream', 'bool', 'DEFAULT false'],
      ['system_prompt_reset', 'bool', 'DEFAULT false'],
    ],
  },
};

/** Creates the given product's tables in an empty database. */
export async function createSourceSchema(
  k: AnyKysely,
  dialect: DialectName,
  schema: Record<string, Table>,
): Promise<void> {
  for (const [name, table] of Object.entries(schema)) {
    const cols = table.columns.map(
      ([c, kind, extra]) => `${q(dialect, c)} ${render(dialect, kind)}${extra ? ` ${extra}` : ''}`,
    );
    if (table.primary) cols.push(`PRIMARY KEY (${table.primary.map((c) => q(dialect, c)).join(', ')})`);
    for (const c of table.unique ?? []) cols.push(`UNIQUE (${q(dialect, c)})`);
    await sql.raw(`CREATE TABLE ${q(dialect, name)} (${cols.join(', ')})`).execute(k);
  }
}
