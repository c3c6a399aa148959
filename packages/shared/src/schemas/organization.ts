import { z } from 'zod';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';
import { mcpToolListFields } from './mcp-server.js';
import {
  BUDGET_ALERT_PERCENT_MAX,
  BUDGET_ALERTS_MAX,
  BUDGET_LEVELS,
  BUDGET_PERIODS,
  ORG_INVITATION_TTL_DEFAULT,
  ORG_INVITATION_TTL_MAX,
  ORG_MARKUP_BP_MAX,
  ORG_NAME_MAX,
  ORG_ROLES,
  ORG_TEAM_NAME_MAX,
  SPEND_DIMENSIONS,
  TAG_LENGTH_MAX,
  TAG_PATTERN,
} from '../organizations.js';

/** Routes under /api/org/:id/… name the organization by `id`. */
export const orgIdParam = z.object({ id: z.coerce.number().int().positive() });
export const orgMemberParam = orgIdParam.extend({ user_id: z.coerce.number().int().positive() });
export const orgTeamParam = orgIdParam.extend({ team_id: z.coerce.number().int().positive() });
export const orgTeamMemberParam = orgTeamParam.extend({ user_id: z.coerce.number().int().positive() });
export const orgTokenParam = orgIdParam.extend({ token_id: z.coerce.number().int().positive() });
export const orgBudgetParam = orgIdParam.extend({ budget_id: z.coerce.number().int().positive() });
export const orgInvitationParam = orgIdParam.extend({ invitation_id: z.coerce.number().int().positive() });

const orgName = z.string().trim().min(1).max(ORG_NAME_MAX);
export const orgRole = z.enum(ORG_ROLES);

/** An organization as its members see it; `role` is the caller's (system admins: 'owner'). */
export const organization = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.number().int(),
  /** The shared wallet: the organization's account (users.id) and its quota now. */
  wallet_user_id: z.number().int(),
  quota: z.number().int(),
  used_quota: z.number().int(),
  role: orgRole,
  member_count: z.number().int(),
  /** Root allows its own prices; markup over the system's price in basis points. */
  reseller: z.boolean(),
  markup_bp: z.number().int(),
  alert_webhook_url: z.string(),
  /** MCP tools the organization's tokens may use (`<server>__<tool>` patterns; '' every tool). */
  mcp_allow_tools: z.string(),
  mcp_deny_tools: z.string(),
  created_at: z.number().int(),
});
export type Organization = z.infer<typeof organization>;

/** POST /api/org */
export const orgCreateBody = z.object({ name: orgName });
/** PUT /api/org/:id (owner/admin): name and where budget alerts are posted ('' none; a secret signs them). */
export const orgUpdateBody = z.object({
  name: orgName.optional(),
  alert_webhook_url: z.string().trim().max(512).optional(),
  alert_webhook_secret: z.string().max(128).optional(),
  /** Owner, when root allows the organization its own prices. */
  markup_bp: z.number().int().min(0).max(ORG_MARKUP_BP_MAX).optional(),
  /** Owner/admin: the MCP tools the organization's tokens may use (docs/operating/mcp.md). */
  mcp_allow_tools: mcpToolListFields.mcp_allow_tools.optional(),
  mcp_deny_tools: mcpToolListFields.mcp_deny_tools.optional(),
});
export type OrgUpdateBody = z.infer<typeof orgUpdateBody>;
/** PUT /api/org/:id/reseller (root). */
export const orgResellerBody = z.object({ reseller: z.boolean() });
/** PUT /api/org/:id/status (system admin). */
export const orgStatusBody = z.object({ status: z.union([z.literal(1), z.literal(2)]) });

export const orgMember = z.object({
  user_id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  email: z.string(),
  role: orgRole,
  team_ids: z.array(z.number().int()),
  joined_at: z.number().int(),
});
export type OrgMember = z.infer<typeof orgMember>;
export const orgMemberRoleBody = z.object({ role: orgRole });

/** POST /api/org/:id/invitations: by link (no e-mail) or sent to `email`; the role granted on acceptance. */
export const orgInvitationBody = z.object({
  email: z.string().trim().email().max(254).optional(),
  role: orgRole.default('member'),
  ttl_seconds: z.number().int().min(60).max(ORG_INVITATION_TTL_MAX).default(ORG_INVITATION_TTL_DEFAULT),
});
export const orgInvitation = z.object({
  id: z.number().int(),
  email: z.string(),
  role: orgRole,
  status: z.number().int(),
  created_by: z.number().int(),
  created_at: z.number().int(),
  expires_at: z.number().int(),
  accepted_by: z.number().int(),
  accepted_at: z.number().int(),
});
export type OrgInvitation = z.infer<typeof orgInvitation>;
/** The answer to creating one: the invitation and, once only, its link (the code is stored hashed). */
export const orgInvitationCreated = z.object({ invitation: orgInvitation, code: z.string(), link: z.string() });
/** POST /api/org/invitation/accept and GET /api/org/invitation?code=: the code from the link. */
export const orgInvitationCodeBody = z.object({ code: z.string().trim().min(16).max(128) });
/** What the holder of a code is shown before accepting. */
export const orgInvitationPreview = z.object({
  org_id: z.number().int(),
  org_name: z.string(),
  role: orgRole,
  email: z.string(),
  expires_at: z.number().int(),
});

export const orgTeam = z.object({
  id: z.number().int(),
  name: z.string(),
  member_ids: z.array(z.number().int()),
  token_count: z.number().int(),
  created_at: z.number().int(),
});
export type OrgTeam = z.infer<typeof orgTeam>;
export const orgTeamBody = z.object({ name: z.string().trim().min(1).max(ORG_TEAM_NAME_MAX) });

/** An organization's token (tokens.user_id is the wallet account; member_id the person holding it). */
export const orgToken = z.object({
  id: z.number().int(),
  name: z.string(),
  /** Masked except once, at creation. */
  key: z.string(),
  status: z.number().int(),
  member_id: z.number().int(),
  member_name: z.string(),
  team_id: z.number().int(),
  used_quota: z.number().int(),
  remain_quota: z.number().int(),
  unlimited_quota: z.boolean(),
  expired_time: z.number().int(),
  created_time: z.number().int(),
  accessed_time: z.number().int(),
});
export type OrgToken = z.infer<typeof orgToken>;
/** POST/PUT /api/org/:id/tokens[/:token_id]; member_id: an admin may issue a token to another member. */
export const orgTokenBody = z.object({
  name: z.string().trim().min(1).max(50),
  member_id: z.number().int().positive().optional(),
  team_id: z.number().int().min(0).default(0),
  unlimited_quota: z.boolean().default(true),
  remain_quota: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  expired_time: z.number().int().min(-1).default(-1),
  status: z.union([z.literal(1), z.literal(2)]).optional(),
});

/** POST /api/org/:id/redeem: a redemption code credits the shared wallet. */
export const orgRedeemBody = z.object({ key: z.string().trim().min(1).max(64) });

const alertPercents = z
  .array(z.number().int().min(1).max(BUDGET_ALERT_PERCENT_MAX))
  .max(BUDGET_ALERTS_MAX)
  .default([])
  .transform((v) => [...new Set(v)].sort((a, b) => a - b));

/**
 * POST/PUT /api/org/:id/budgets[/:budget_id]. target_id: the team, member (user id) or token (0 for org and tag
 * levels); tag: the tag (tag level only). hard: calls are refused once the budget is used up (soft: alerts only).
 */
export const budgetBody = z
  .object({
    level: z.enum(BUDGET_LEVELS),
    target_id: z.number().int().min(0).default(0),
    tag: z.string().trim().max(TAG_LENGTH_MAX).default(''),
    period: z.enum(BUDGET_PERIODS),
    limit_quota: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    hard: z.boolean().default(true),
    alert_percents: alertPercents,
    alert_email: z.boolean().default(true),
    alert_webhook: z.boolean().default(false),
  })
  .refine(
    (b) => (b.level === 'tag' ? TAG_PATTERN.test(b.tag) : b.tag === ''),
    inputRule(ErrorCode.BudgetTargetInvalid, 'tag is required for a tag budget, and only there', { level: 'tag' }, [
      'tag',
    ]),
  )
  .refine(
    (b) => (b.level === 'org' || b.level === 'tag' ? b.target_id === 0 : b.target_id > 0),
    inputRule(
      ErrorCode.BudgetTargetInvalid,
      'target_id names the team, member or token (0 for org and tag)',
      {
        level: 'target',
      },
      ['target_id'],
    ),
  );
export type BudgetBody = z.infer<typeof budgetBody>;

export const budget = z.object({
  id: z.number().int(),
  level: z.enum(BUDGET_LEVELS),
  target_id: z.number().int(),
  /** The team's, member's or token's name; the tag; '' for the organization. */
  target_name: z.string(),
  tag: z.string(),
  period: z.enum(BUDGET_PERIODS),
  limit_quota: z.number().int(),
  hard: z.boolean(),
  alert_percents: z.array(z.number().int()),
  alert_email: z.boolean(),
  alert_webhook: z.boolean(),
  /** Spent in the current period (charges and holds in flight), what is left, and when the period ends (0: total). */
  used_quota: z.number().int(),
  remaining_quota: z.number().int(),
  resets_at: z.number().int(),
  created_at: z.number().int(),
});
export type Budget = z.infer<typeof budget>;

/** GET /api/org/:id/spend and /spend/export: a range (Unix seconds) and what to break it down by. */
export const spendQuery = z.object({
  start_timestamp: z.coerce.number().int().min(0),
  end_timestamp: z.coerce.number().int().min(0),
  group_by: z.enum(SPEND_DIMENSIONS).default('member'),
  team_id: z.coerce.number().int().min(0).optional(),
  member_id: z.coerce.number().int().min(0).optional(),
  token_id: z.coerce.number().int().min(0).optional(),
  model_name: z.string().max(128).optional(),
  tag: z.string().max(TAG_LENGTH_MAX).optional(),
});
export type SpendQuery = z.infer<typeof spendQuery>;

export const spendRow = z.object({
  /** The dimension's value: id (team, member, token), model name, tag, or day (YYYY-MM-DD). */
  key: z.string(),
  /** Its name for people (team, username, token name; the key otherwise). */
  label: z.string(),
  quota: z.number().int(),
  /** At a reseller organization's prices (equal to quota otherwise). */
  billed_quota: z.number().int(),
  requests: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
});
export type SpendRow = z.infer<typeof spendRow>;
export const spendReport = z.object({
  group_by: z.enum(SPEND_DIMENSIONS),
  rows: z.array(spendRow),
  total: spendRow.omit({ key: true, label: true }),
});
export type SpendReport = z.infer<typeof spendReport>;
