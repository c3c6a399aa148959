import type { Db } from '../../db/connect.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { IpAllowList } from '../../lib/ip-allow.js';
import { limitSetOf } from '../../core/period-limits/counters.js';
import type { PeriodLimits } from '../../core/period-limits/types.js';
import { normalizeBillingPreference, UserStatus, type BillingPreference } from '@tollway/shared';
import { activePlansOf, type ActivePlan } from './active-plans.js';
import { budgetAppliesTo, type BudgetRule } from '../../core/period-limits/budget-counters.js';
import { orgBudgetRules } from '../../core/period-limits/budget-rules.js';

/** What the relay needs to know about an API token and its owner, held in memory. */
export interface TokenAuth {
  tokenId: number;
  name: string;
  status: number;
  /** Epoch seconds; -1 never. */
  expiredTime: number;
  unlimited: boolean;
  /** Undefined when model limits are off. */
  modelLimits: Set<string> | undefined;
  allowIps: IpAllowList;
  /** Token group ('' means the user's group; 'auto' the AutoGroups chain, relay/pipeline/auto-group.ts). */
  group: string;
  /** new-api's cross_group_retry: an 'auto' call moves on to the next auto group when its group has none left. */
  crossGroupRetry: boolean;
  /** The token's own concurrency limit (0: the TokenConcurrencyLimit option's; relay/limits/concurrency.ts). */
  concurrencyLimit: number;
  userId: number;
  username: string;
  userStatus: number;
  userRole: number;
  userGroup: string;
  /** users.setting accept_unset_model_ratio_model. */
  acceptUnsetRatio: boolean;
  /** The token's own request limit, when enabled. */
  rateLimit: { periodSeconds: number; count: number; success: number } | undefined;
  /** Requests and tokens per minute of the token and of its user (0: none). */
  perMinute: { tokenRpm: number; tokenTpm: number; userRpm: number; userTpm: number };
  /** The token's and its user's period limits (limits/period-limits.ts); undefined when neither sets one. */
  periods: PeriodLimits | undefined;
  /** users.setting billing_preference: whether calls draw from the user's plans, the wallet, or one then the other. */
  billing: BillingPreference;
  /** The user's active subscriptions when loaded, the soonest ending first (none with billing 'wallet_only'). */
  plans: readonly ActivePlan[];
  /** The organization whose wallet the token's user is (users.org_id; 0: a person's own account). */
  orgId: number;
  /** The person holding an organization token and their team (tokens.member_id / team_id; 0 none). */
  memberId: number;
  teamId: number;
  /** A reseller organization's markup in basis points (0 unless root made it a reseller): logs' billed_quota. */
  markupBp: number;
  /** The call's tags as the logs store them (`,a,b,`; '' none): set per call on a copy (withTags). */
  tags: string;
  loadedAt: number;
}

/** A call's view of its token with its tags: the cached object itself when it has none (no copy on the hot path). */
export function withTags(auth: TokenAuth, tags: readonly string[], column: string): TokenAuth {
  if (!tags.length) return auth;
  const periods = auth.periods?.budgets ? { ...auth.periods, tags } : auth.periods;
  return { ...auth, tags: column, periods };
}

/** Organizations' budgets held (per wallet account; the least recently used beyond this are read again). */
export const ORG_BUDGETS_CACHE_MAX = 10_000;

const NEGATIVE_TTL_MS = 5_000;
/** Known keys held (real tokens only; the least recently used beyond this are loaded again when next used). */
export const TOKEN_CACHE_MAX = 50_000;
/** Unknown keys remembered (a flood of random keys costs at most this many entries, each for NEGATIVE_TTL_MS). */
export const UNKNOWN_KEY_CACHE_MAX = 10_000;

/**
 * API tokens by key, loaded on first use and kept until invalidated (token or user change on this node, a
 * bus message from another), older than the sync interval or pushed out by TOKEN_CACHE_MAX. Unknown keys are
 * remembered briefly in a map of their own, bounded (UNKNOWN_KEY_CACHE_MAX), so a flood of bad keys neither
 * reaches the database nor grows the process.
 */
export class TokenAuthCache {
  private readonly byKey: BoundedMap<string, TokenAuth>;
  private readonly unknown = new BoundedMap<string, true>({
    maxEntries: UNKNOWN_KEY_CACHE_MAX,
    ttlMs: NEGATIVE_TTL_MS,
  });
  /** Loads under way: one entry per key being read from the database, gone when the read ends. */
  private readonly loading = new Map<string, Promise<TokenAuth | undefined>>();
  /** Each organization's budgets by its wallet account, dropped with that account's tokens (invalidateUser). */
  private readonly budgets = new BoundedMap<number, Promise<BudgetRule[]>>({ maxEntries: ORG_BUDGETS_CACHE_MAX });

  constructor(
    private readonly db: Db,
    maxAgeMs: number,
    /** Whether a user of the first group may use the second now (options in memory, read on every call). */
    readonly groupUsable: (userGroup: string, group: string) => boolean,
    /** The stored form of a presented key (sealed with CRYPTO_SECRET); computed on a cache miss only. */
    private readonly storedKey: (key: string) => string = (key) => key,
  ) {
    this.byKey = new BoundedMap({ maxEntries: TOKEN_CACHE_MAX, ttlMs: maxAgeMs });
  }

  /** Entries held, known and unknown keys (never more than `capacity`). */
  get size(): number {
    return this.byKey.size + this.unknown.size;
  }

  get capacity(): number {
    return this.byKey.capacity + this.unknown.capacity;
  }

  async get(key: string, now = Date.now()): Promise<TokenAuth | undefined> {
    const hit = this.byKey.get(key, now);
    if (hit !== undefined) return hit;
    if (this.unknown.get(key, now)) return undefined;
    let p = this.loading.get(key);
    if (!p) {
      p = this.load(key, now).finally(() => this.loading.delete(key));
      this.loading.set(key, p);
    }
    return p;
  }

  private async load(key: string, now: number): Promise<TokenAuth | undefined> {
    const row = await this.db.kysely
      .selectFrom('tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .leftJoin('organizations as o', 'o.id', 'u.org_id')
      // The person holding an organization token: their account ending ends the token (see holderStatus).
      .leftJoin('users as m', 'm.id', 't.member_id')
      .select([
        'm.status as memberStatus',
        'm.deleted_at as memberDeleted',
        'u.org_id as orgId',
        't.member_id as memberId',
        't.team_id as teamId',
        'o.reseller as reseller',
        'o.markup_bp as markupBp',
        't.id as tokenId',
        't.name',
        't.status',
        't.expired_time',
        't.unlimited_quota',
        't.model_limits_enabled',
        't.model_limits',
        't.allow_ips',
        't.group',
        't.cross_group_retry',
        't.concurrency_limit',
        't.rate_limit_enabled',
        't.rate_limit_period',
        't.rate_limit_count',
        't.rate_limit_success',
        't.rpm_limit as tokenRpm',
        't.tpm_limit as tokenTpm',
        'u.rpm_limit as userRpm',
        'u.tpm_limit as userTpm',
        't.quota_per_day as tokenDay',
        't.quota_per_week as tokenWeek',
        't.quota_per_month as tokenMonth',
        't.quota_per_5h as token5h',
        't.requests_per_day as tokenRequestsDay',
        'u.quota_per_day as userDay',
        'u.quota_per_week as userWeek',
        'u.quota_per_month as userMonth',
        'u.quota_per_5h as user5h',
        'u.requests_per_day as userRequestsDay',
        'u.id as userId',
        'u.username',
        'u.status as userStatus',
        'u.role as userRole',
        'u.group as userGroup',
        'u.setting as userSetting',
        'u.deleted_at as userDeleted',
      ])
      .where('t.key', '=', this.storedKey(key))
      .where('t.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row || row.userDeleted) {
      this.byKey.delete(key);
      this.unknown.set(key, true, NEGATIVE_TTL_MS, now);
      return undefined;
    }
    let setting: { accept_unset_model_ratio_model?: unknown; billing_preference?: unknown };
    try {
      setting = (JSON.parse(row.userSetting || '{}') as typeof setting | null) ?? {};
    } catch {
      setting = {};
    }
    const acceptUnset = Boolean(setting.accept_unset_model_ratio_model);
    const billing = normalizeBillingPreference(setting.billing_preference);
    const plans = billing === 'wallet_only' ? [] : await activePlansOf(this.db, row.userId, now);
    const orgId = Number(row.orgId ?? 0);
    const holder = { tokenId: row.tokenId, memberId: Number(row.memberId ?? 0), teamId: Number(row.teamId ?? 0) };
    let periods = periodLimitsOfRow(row);
    if (orgId > 0) {
      const budgets = (await this.orgBudgets(row.userId, orgId, now)).filter((b) => budgetAppliesTo(b, holder));
      if (budgets.length)
        periods = {
          ...(periods ?? { tokenId: row.tokenId, userId: row.userId, token: undefined, user: undefined }),
          budgets,
        };
    }
    const auth: TokenAuth = {
      tokenId: row.tokenId,
      name: row.name,
      status: row.status,
      expiredTime: Number(row.expired_time),
      unlimited: row.unlimited_quota === 1,
      modelLimits:
        row.model_limits_enabled === 1
          ? new Set(
              row.model_limits
                .split(',')
                .map((m) => m.trim())
                .filter(Boolean),
            )
          : undefined,
      allowIps: new IpAllowList(row.allow_ips ?? ''),
      group: row.group,
      crossGroupRetry: Number(row.cross_group_retry) === 1,
      concurrencyLimit: Number(row.concurrency_limit ?? 0),
      userId: row.userId,
      username: row.username,
      userStatus: holderStatus(row),
      userRole: row.userRole,
      userGroup: row.userGroup,
      acceptUnsetRatio: acceptUnset,
      rateLimit:
        row.rate_limit_enabled === 1 && row.rate_limit_period > 0
          ? { periodSeconds: row.rate_limit_period, count: row.rate_limit_count, success: row.rate_limit_success }
          : undefined,
      perMinute: {
        tokenRpm: Number(row.tokenRpm),
        tokenTpm: Number(row.tokenTpm),
        userRpm: Number(row.userRpm),
        userTpm: Number(row.userTpm),
      },
      periods,
      billing,
      plans,
      orgId,
      memberId: holder.memberId,
      teamId: holder.teamId,
      markupBp: Number(row.reseller ?? 0) === 1 ? Number(row.markupBp ?? 0) : 0,
      tags: '',
      loadedAt: now,
    };
    this.unknown.delete(key);
    this.byKey.set(key, auth, undefined, now);
    return auth;
  }

  invalidateKey(key: string): void {
    this.byKey.delete(key);
    this.unknown.delete(key);
  }

  invalidateUser(userId: number): void {
    this.budgets.delete(userId);
    // A person's change also reaches the organization tokens they hold (their status is the tokens' too).
    for (const [k, v] of this.byKey) if (v.userId === userId || v.memberId === userId) this.byKey.delete(k);
  }

  /** The budgets of organization `orgId` (wallet account `walletUserId`), read once and kept until invalidated. */
  private orgBudgets(walletUserId: number, orgId: number, now: number): Promise<BudgetRule[]> {
    let p = this.budgets.get(walletUserId, now);
    if (!p) {
      p = orgBudgetRules(this.db, orgId);
      p.catch(() => this.budgets.delete(walletUserId));
      this.budgets.set(walletUserId, p, undefined, now);
    }
    return p;
  }

  clear(): void {
    this.budgets.clear();
    this.byKey.clear();
    this.unknown.clear();
  }
}

type Num = number | string | bigint;

/**
 * The status the relay checks for a token: its owner's, and for an organization token also its holder's — a member
 * disabled or deleted by an administrator loses the organization's tokens they hold, as they lose their own.
 */
function holderStatus(r: {
  userStatus: number;
  memberId: Num | null;
  memberStatus: number | null;
  memberDeleted: string | null;
}): number {
  if (!Number(r.memberId ?? 0)) return r.userStatus;
  if (r.memberStatus === null || r.memberDeleted) return UserStatus.Disabled;
  return r.memberStatus !== UserStatus.Enabled ? r.memberStatus : r.userStatus;
}

/** The period limits of a loaded token row (bigint columns may come back as strings). */
function periodLimitsOfRow(r: {
  tokenId: number;
  userId: number;
  tokenDay: Num;
  tokenWeek: Num;
  tokenMonth: Num;
  token5h: Num;
  tokenRequestsDay: Num;
  userDay: Num;
  userWeek: Num;
  userMonth: Num;
  user5h: Num;
  userRequestsDay: Num;
}): PeriodLimits | undefined {
  const token = limitSetOf({
    day: Number(r.tokenDay),
    week: Number(r.tokenWeek),
    month: Number(r.tokenMonth),
    fiveHours: Number(r.token5h),
    requestsPerDay: Number(r.tokenRequestsDay),
  });
  const user = limitSetOf({
    day: Number(r.userDay),
    week: Number(r.userWeek),
    month: Number(r.userMonth),
    fiveHours: Number(r.user5h),
    requestsPerDay: Number(r.userRequestsDay),
  });
  return token || user ? { tokenId: r.tokenId, userId: r.userId, token, user } : undefined;
}
