import type { Generated } from 'kysely';
import type { ModelsTable, VendorsTable } from './schema-registry.js';
import type {
  SubscriptionOrdersTable,
  SubscriptionPlansTable,
  UserSubscriptionsTable,
} from './schema-subscriptions.js';
import type { PasskeyCredentialsTable } from './schema-passkeys.js';
import type { ResponseCacheTable, ResponseCacheVectorsTable } from './schema-response-cache.js';
import type {
  BudgetAlertsTable,
  BudgetsTable,
  OrganizationsTable,
  OrgInvitationsTable,
  OrgMembersTable,
  OrgTeamMembersTable,
  OrgTeamsTable,
} from './schema-organizations.js';
import type { CustomOAuthProvidersTable, UserOAuthBindingsTable } from './schema-custom-oauth.js';
import type { McpServersTable } from './schema-mcp.js';

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
  /** Unix seconds of the last low-quota warning; 0 while armed (see modules/notifications). */
  quota_warned_at: Generated<number>;
  /** Requests and tokens per minute (0: no limit). */
  rpm_limit: Generated<number>;
  tpm_limit: Generated<number>;
  /** Period limits (0: none): quota per day, ISO week, month and rolling 5 hours; requests per day. */
  quota_per_day: Generated<number>;
  quota_per_week: Generated<number>;
  quota_per_month: Generated<number>;
  quota_per_5h: Generated<number>;
  requests_per_day: Generated<number>;
  /** Non-zero: this account is organization `org_id`'s shared wallet (nobody signs in to it). */
  org_id: Generated<number>;
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

export interface ChannelsTable {
  id: Generated<number>;
  type: number;
  key: string;
  openai_organization: string;
  test_model: string;
  status: number;
  name: string;
  weight: number;
  created_time: number;
  test_time: number;
  response_time: number;
  base_url: string;
  other: string;
  balance: number;
  balance_updated_time: number;
  models: string;
  group: string;
  used_quota: number;
  model_mapping: string;
  status_code_mapping: string;
  priority: number;
  auto_ban: number;
  other_info: string;
  tag: string;
  setting: string;
  param_override: string;
  system_prompt: string;
  max_input_tokens: number;
  model_prefix: string;
  expired_time: number;
  /** Multi-key state (JSON): mode, per-key status and the polling index. */
  channel_info: string;
  /** new-api's "other settings" (JSON object): allow_service_tier, disable_store, claude_beta_query…; unknown keys kept. */
  settings: string;
  /** Headers sent upstream (JSON object of name → value, with {api_key} and {client_header:…} placeholders). */
  header_override: string;
  /** An administrator's note (at most 255 characters). */
  remark: string;
}

export interface AbilitiesTable {
  group: string;
  model: string;
  channel_id: number;
  enabled: number;
  priority: number;
  weight: number;
  tag: string;
}

export interface TokensTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: number;
  used_quota: number;
  model_limits_enabled: number;
  model_limits: string;
  allow_ips: string;
  group: string;
  rate_limit_enabled: number;
  rate_limit_period: number;
  rate_limit_count: number;
  rate_limit_success: number;
  /** Requests and tokens per minute (0: no limit). */
  rpm_limit: Generated<number>;
  tpm_limit: Generated<number>;
  /** new-api's cross_group_retry (0/1): an `auto` token's call moves on to the next auto group. */
  cross_group_retry: Generated<number>;
  /** Calls in flight at once (0: the TokenConcurrencyLimit option's). */
  concurrency_limit: Generated<number>;
  /** Period limits (0: none): quota per day, ISO week, month and rolling 5 hours; requests per day. */
  quota_per_day: Generated<number>;
  quota_per_week: Generated<number>;
  quota_per_month: Generated<number>;
  quota_per_5h: Generated<number>;
  requests_per_day: Generated<number>;
  /** An organization's token: the member holding it (users.id) and their team (0: none; 0 for personal tokens). */
  member_id: Generated<number>;
  team_id: Generated<number>;
  /** MCP tools the token may use: comma-separated `<server>__<tool>` patterns (migration 0031; '' none). */
  mcp_allow_tools: Generated<string>;
  mcp_deny_tools: Generated<string>;
  deleted_at: string | null;
}

export interface LogsTable {
  id: Generated<number>;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  is_stream: number;
  channel_id: number;
  channel_name: string;
  token_id: number;
  group: string;
  ip: string;
  request_id: string;
  other: string;
  /** An organization's call: the member whose token it was, their team, the call's tags (`,a,b,`) and, at a reseller
   * organization, the member's price of it (0 otherwise). */
  member_id: Generated<number>;
  team_id: Generated<number>;
  tags: Generated<string>;
  billed_quota: Generated<number>;
}

export interface WriterBatchesTable {
  id: string;
  applied_at: number;
}

/** Hourly usage per user and model (data dashboard); created_at is the hour's first second. */
export interface QuotaDataTable {
  id: Generated<number>;
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
}

export interface CheckinsTable {
  id: Generated<number>;
  user_id: number;
  /** YYYY-MM-DD in the server's time zone; UNIQUE(user_id, day). */
  day: string;
  quota: number;
  created_at: number;
}

/** Drawing tasks (new-api's midjourneys). */
export interface MidjourneysTable {
  id: Generated<number>;
  code: number;
  user_id: number;
  action: string;
  mj_id: string;
  prompt: string;
  prompt_en: string;
  description: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  progress: string;
  fail_reason: string;
  channel_id: number;
  quota: number;
  group: Generated<string>;
  token_id: Generated<number>;
  /** The priced name (mj_imagine, …) the task was charged for. */
  model_name: Generated<string>;
  request_id: Generated<string>;
  /** JSON. */
  properties: Generated<string>;
  /** JSON, never shown to callers. */
  private_data: Generated<string>;
  updated_at: Generated<number>;
  /** JSON array of Midjourney's buttons. */
  buttons: Generated<string>;
  video_url: Generated<string>;
  /** JSON array. */
  video_urls: Generated<string>;
  /** fast, relax or turbo. */
  mode: Generated<string>;
  state: Generated<string>;
  /** The writer batch that applied the task's charge ('' while none has). */
  charge_batch: Generated<string>;
  /** The writer batch that applied its refund ('' while none has). */
  refund_batch: Generated<string>;
}

/** Asynchronous (music, video) tasks (new-api's tasks). */
export interface TasksTable {
  id: Generated<number>;
  task_id: string;
  platform: string;
  user_id: number;
  channel_id: number;
  quota: number;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: string;
  group: Generated<string>;
  token_id: Generated<number>;
  model_name: Generated<string>;
  request_id: Generated<string>;
  properties: Generated<string>;
  private_data: Generated<string>;
  updated_at: Generated<number>;
  result_url: Generated<string>;
  /** The upstream's id of the task; `task_id` is the public one callers see. */
  upstream_task_id: Generated<string>;
  charge_batch: Generated<string>;
  refund_batch: Generated<string>;
}

/** Background jobs one node of a cluster runs at a time: who holds each, until when (epoch ms). */
export interface ClusterLeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

export interface RedemptionsTable {
  id: Generated<number>;
  /** The administrator who created the code. */
  user_id: number;
  key: string;
  /** 1 unused, 2 disabled, 3 used. */
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  /** The last user who redeemed it; 0 none. */
  used_user_id: number;
  is_gift: number;
  /** Uses allowed: 1 for a normal code, -1 unlimited or a positive count for a gift code. */
  max_uses: number;
  used_count: number;
  /** Epoch seconds; 0 means no bound. */
  valid_from: number;
  valid_until: number;
}

export interface RedemptionUsesTable {
  redemption_id: number;
  user_id: number;
  quota: number;
  created_time: number;
}

/** Online top-up orders (Epay); status pending → success (or expired). */
export interface TopUpsTable {
  id: Generated<number>;
  user_id: number;
  /** Currency units bought (quota credited = amount × QuotaPerUnit); for a Creem order the quota itself (new-api's). */
  amount: number;
  /** What the user pays, in the payment currency (two decimals). */
  money: number;
  trade_no: string;
  payment_method: string;
  create_time: number;
  complete_time: number;
  status: 'pending' | 'success' | 'expired' | 'failed';
}

export interface MessagesTable {
  id: Generated<number>;
  title: string;
  content: string;
  /** 'markdown' or 'html'. */
  format: string;
  created_at: number;
  /** The administrator who sent it. */
  created_by: number;
}

/** One recipient's receipt of a message; read_at null while unread. */
export interface MessageRecipientsTable {
  id: Generated<number>;
  message_id: number;
  user_id: number;
  read_at: number | null;
}

/** A third-party account (provider key, the provider's id) and the one user holding it. */
export interface UserIdentitiesTable {
  provider: string;
  external_id: string;
  user_id: number;
  created_at: number;
}

/** A console session; `id` is the SHA-256 (hex) of the random id sealed in the cookie. */
export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  ip: string;
  user_agent: string;
  /** How the session was signed in (modules/auth/session-origin.ts); '' for sessions older than the column. */
  origin: string;
}

/** Two-factor sign-in of one user: enabled 0 while set up but not confirmed; the secret sealed with CRYPTO_SECRET when set. */
export interface TwoFactorTable {
  user_id: number;
  secret: string;
  enabled: number;
  /** The TOTP step of the last accepted code; a code of this step or an earlier one is refused. */
  last_used_step: number;
  created_at: number;
  enabled_at: number;
}

/** One backup code (scrypt hash, or new-api's bcrypt for one imported from it); used_at 0 until it is spent. */
export interface TwoFactorBackupCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: number;
}

/** An administrator's action (or refused attempt); detail is JSON with secrets masked. */
export interface AuditLogsTable {
  id: Generated<number>;
  created_at: number;
  actor_id: number;
  actor_name: string;
  actor_role: number;
  action: string;
  target_type: string;
  target_id: string;
  /** 'ok' or 'denied' (refused with 403). */
  outcome: string;
  ip: string;
  user_agent: string;
  detail: string;
}

export type { ModelsTable, VendorsTable, SubscriptionOrdersTable, SubscriptionPlansTable, UserSubscriptionsTable };

export interface Database {
  users: UsersTable;
  options: OptionsTable;
  setups: SetupsTable;
  channels: ChannelsTable;
  abilities: AbilitiesTable;
  tokens: TokensTable;
  logs: LogsTable;
  writer_batches: WriterBatchesTable;
  top_ups: TopUpsTable;
  redemptions: RedemptionsTable;
  redemption_uses: RedemptionUsesTable;
  checkins: CheckinsTable;
  midjourneys: MidjourneysTable;
  tasks: TasksTable;
  cluster_leases: ClusterLeasesTable;
  quota_data: QuotaDataTable;
  messages: MessagesTable;
  message_recipients: MessageRecipientsTable;
  user_identities: UserIdentitiesTable;
  audit_logs: AuditLogsTable;
  sessions: SessionsTable;
  two_factor: TwoFactorTable;
  two_factor_backup_codes: TwoFactorBackupCodesTable;
  vendors: VendorsTable;
  models: ModelsTable;
  subscription_plans: SubscriptionPlansTable;
  user_subscriptions: UserSubscriptionsTable;
  subscription_orders: SubscriptionOrdersTable;
  passkey_credentials: PasskeyCredentialsTable;
  custom_oauth_providers: CustomOAuthProvidersTable;
  user_oauth_bindings: UserOAuthBindingsTable;
  response_cache: ResponseCacheTable;
  response_cache_vectors: ResponseCacheVectorsTable;
  organizations: OrganizationsTable;
  org_members: OrgMembersTable;
  org_invitations: OrgInvitationsTable;
  org_teams: OrgTeamsTable;
  org_team_members: OrgTeamMembersTable;
  budgets: BudgetsTable;
  budget_alerts: BudgetAlertsTable;
  mcp_servers: McpServersTable;
}
