/**
 * Organizations: the constants and rules server and console share (docs/operating/organizations.md).
 *
 * A person's own account is an organization of one (nothing about it changes). An organization is a shared wallet
 * (an account of its own, `users.org_id` = the organization's id, that nobody signs in to) with members in roles,
 * teams, its own tokens and budgets. System admins and root act as an owner of every organization.
 */

/** A member's role in an organization, least to most. */
export const ORG_ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** What a role may do in its organization. */
export const ORG_CAPABILITIES = [
  /** The organization's overview, members, teams and budgets. */
  'org.read',
  /** Own tokens in the organization (create, edit, delete the tokens one holds). */
  'tokens.own',
  /** Every token of the organization. */
  'tokens.all',
  /** Every member's logs, spend and export (a member sees only their own). */
  'spend.all',
  /** Invite, remove members and change roles below owner. */
  'members.manage',
  'teams.manage',
  'budgets.manage',
  /** Credit the shared wallet (redemption codes, plans bought with its quota). */
  'wallet.credit',
  /** Name and alert webhook. */
  'org.manage',
  /** Grant or take the owner role, set the organization's own prices (when root allows), delete it. */
  'org.own',
] as const;
export type OrgCapability = (typeof ORG_CAPABILITIES)[number];

const CAPABILITIES_OF: Record<OrgRole, readonly OrgCapability[]> = {
  viewer: ['org.read', 'spend.all'],
  member: ['org.read', 'tokens.own'],
  admin: [
    'org.read',
    'tokens.own',
    'tokens.all',
    'spend.all',
    'members.manage',
    'teams.manage',
    'budgets.manage',
    'wallet.credit',
    'org.manage',
  ],
  owner: ORG_CAPABILITIES,
};

/** Whether `role` may do `what` (undefined: not a member, nothing). */
export function orgCan(role: OrgRole | undefined, what: OrgCapability): boolean {
  return role !== undefined && CAPABILITIES_OF[role].includes(what);
}

export const isOrgRole = (v: unknown): v is OrgRole =>
  typeof v === 'string' && (ORG_ROLES as readonly string[]).includes(v);

/** Organization status (as users': 1 enabled, 2 disabled). */
export const OrgStatus = { Enabled: 1, Disabled: 2 } as const;

/** Bounds of what one caller may create. */
export const ORG_NAME_MAX = 64;
export const ORG_TEAM_NAME_MAX = 64;
/** Organizations a person may create (system admins: unbounded). */
export const ORG_CREATED_MAX = 10;
export const ORG_MEMBERS_MAX = 1000;
export const ORG_TEAMS_MAX = 200;
export const ORG_BUDGETS_MAX = 500;
export const ORG_PENDING_INVITATIONS_MAX = 200;
/** How long an invitation is valid by default, and at most (seconds). */
export const ORG_INVITATION_TTL_DEFAULT = 7 * 86_400;
export const ORG_INVITATION_TTL_MAX = 30 * 86_400;

/** Invitation status. */
export const InvitationStatus = { Pending: 1, Accepted: 2, Revoked: 3 } as const;

/** What a budget is set on. */
export const BUDGET_LEVELS = ['org', 'team', 'member', 'token', 'tag'] as const;
export type BudgetLevel = (typeof BUDGET_LEVELS)[number];

/** A budget's period: calendar day, ISO week, month (the server's time zone), or all time. */
export const BUDGET_PERIODS = ['day', 'week', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** Alert thresholds: at most this many, each a whole percent in 1..BUDGET_ALERT_PERCENT_MAX. */
export const BUDGET_ALERTS_MAX = 5;
export const BUDGET_ALERT_PERCENT_MAX = 1000;

/**
 * Spend tags: a caller tags a call with the TAGS_HEADER header (comma-separated) or the request body's
 * `metadata.tags` (a comma-separated string, as OpenAI's metadata values are strings). Both together count once.
 */
export const TAGS_HEADER = 'x-tollway-tags';
export const TAGS_MAX = 10;
export const TAG_LENGTH_MAX = 32;
/** Letters, digits and `_ . : -`. */
export const TAG_PATTERN = /^[A-Za-z0-9_.:-]+$/;

/**
 * The tags of a call from a header value and a metadata value: trimmed, deduplicated, in order; or the reason they
 * are refused (too many, too long, a character outside TAG_PATTERN). Empty items are dropped.
 */
export function parseTags(...sources: (string | undefined)[]): string[] | 'too_many' | 'too_long' | 'bad_char' {
  const out: string[] = [];
  for (const s of sources) {
    if (!s) continue;
    for (const raw of s.split(',')) {
      const tag = raw.trim();
      if (!tag) continue;
      if (tag.length > TAG_LENGTH_MAX) return 'too_long';
      if (!TAG_PATTERN.test(tag)) return 'bad_char';
      if (!out.includes(tag)) {
        if (out.length >= TAGS_MAX) return 'too_many';
        out.push(tag);
      }
    }
  }
  return out;
}

/** Tags as the logs store them: `,a,b,` (so a tag is found by `LIKE '%,a,%'`); '' without tags. */
export const tagsColumn = (tags: readonly string[]): string => (tags.length ? `,${tags.join(',')},` : '');
export const tagsOfColumn = (v: string): string[] => (v ? v.split(',').filter(Boolean) : []);

/** Reseller prices: the organization's markup over the system's price, in basis points (100 = 1%). */
export const ORG_MARKUP_BP_MAX = 100_000;

/** What a member is billed at a reseller organization's prices for a charge of `quota` (rounded up). */
export function markedUp(quota: number, markupBp: number): number {
  if (markupBp <= 0 || quota <= 0) return quota;
  // quota × bp / 10000 in two parts, so no product leaves the safe integers.
  const whole = Math.floor(quota / 10_000) * markupBp;
  return quota + whole + Math.ceil(((quota % 10_000) * markupBp) / 10_000);
}

/** Spend is broken down by one of these. */
export const SPEND_DIMENSIONS = ['team', 'member', 'token', 'model', 'tag', 'day'] as const;
export type SpendDimension = (typeof SPEND_DIMENSIONS)[number];
/** The longest range a spend query covers (seconds), and the rows a CSV export holds at most. */
export const SPEND_RANGE_MAX = 366 * 86_400;
export const SPEND_EXPORT_ROWS_MAX = 100_000;

/** The console's organization pages (`/app/org/:id/<page>`) and the invitation page a link opens (`?code=`). */
export const ORG_CONSOLE_BASE = '/app/org';
export const ORG_INVITE_PATH = '/app/org/invite';
