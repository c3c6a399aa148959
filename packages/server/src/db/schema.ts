import type { Generated } from 'kysely';

/** Row types of every table. Columns follow new-api's names so an operator's SQL keeps working. */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  password: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  github_id: string;
  oidc_id: string;
  wechat_id: string;
  telegram_id: string;
  linux_do_id: string;
  access_token: string | null;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  aff_code: string;
  aff_count: number;
  aff_quota: number;
  aff_history: number;
  inviter_id: number;
  setting: string;
  remark: string;
  created_at: number;
  deleted_at: string | null;
}

export interface OptionsTable {
  key: string;
  value: string;
}

export interface SetupsTable {
  id: Generated<number>;
  version: string;
  initialized_at: number;
}

export interface Database {
  users: UsersTable;
  options: OptionsTable;
  setups: SetupsTable;
}
