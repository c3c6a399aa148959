import type { Generated } from 'kysely';

/** An organization (migration 0029): its shared wallet is the account `wallet_user_id` (users.org_id = id). */
export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  wallet_user_id: number;
  /** 1 enabled, 2 disabled (OrgStatus). */
  status: Generated<number>;
  /** Root lets it set its own prices (0/1); markup over the system's price in basis points. */
  reseller: Generated<number>;
  markup_bp: Generated<number>;
  alert_webhook_url: Generated<string>;
  /** Sealed with CRYPTO_SECRET like other secrets at rest; '' none. */
  alert_webhook_secret: Generated<string>;
  created_by: Generated<number>;
  created_at: Generated<number>;
  /** MCP tools its tokens may use: comma-separated `<server>__<tool>` patterns (migration 0031; '' none). */
  mcp_allow_tools: Generated<string>;
  mcp_deny_tools: Generated<string>;
  deleted_at: number | null;
}

export interface OrgMembersTable {
  id: Generated<number>;
  org_id: number;
  user_id: number;
  /** OrgRole. */
  role: string;
  created_at: Generated<number>;
}

export interface OrgInvitationsTable {
  id: Generated<number>;
  org_id: number;
  /** sha256 hex of the code the link carries. */
  code_hash: string;
  /** '' for an invitation by link. */
  email: Generated<string>;
  role: string;
  /** InvitationStatus. */
  status: Generated<number>;
  created_by: Generated<number>;
  created_at: Generated<number>;
  expires_at: Generated<number>;
  accepted_by: Generated<number>;
  accepted_at: Generated<number>;
}

export interface OrgTeamsTable {
  id: Generated<number>;
  org_id: number;
  name: string;
  created_at: Generated<number>;
}

export interface OrgTeamMembersTable {
  id: Generated<number>;
  org_id: number;
  team_id: number;
  user_id: number;
}

export interface BudgetsTable {
  id: Generated<number>;
  org_id: number;
  /** BudgetLevel. */
  level: string;
  /** The team, member (users.id) or token; 0 for org and tag budgets. */
  target_id: Generated<number>;
  tag: Generated<string>;
  /** BudgetPeriod. */
  period: string;
  limit_quota: number;
  hard: Generated<number>;
  /** Thresholds in percent, comma-separated ascending ('' none). */
  alert_percents: Generated<string>;
  alert_email: Generated<number>;
  alert_webhook: Generated<number>;
  created_by: Generated<number>;
  created_at: Generated<number>;
  updated_at: Generated<number>;
}

/** An alert sent: one row per budget, period (its start, epoch ms; 0 for total) and threshold. */
export interface BudgetAlertsTable {
  id: Generated<number>;
  budget_id: number;
  period_start: number;
  percent: number;
  used_quota: Generated<number>;
  fired_at: Generated<number>;
}
