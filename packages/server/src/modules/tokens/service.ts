import {
  TOKEN_KEY_PREFIX,
  TOKEN_KEYS_BATCH_MAX,
  TokenStatus,
  PERIOD_LIMIT_KEYS,
  periodLimitValues,
  type CreateTokenBody,
  type TokenPublic,
  type UpdateTokenBody,
  ErrorCode,
} from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { notFound, coded } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { nowSeconds } from '../../lib/time.js';
import { invalidIpLine } from '../../lib/ip-allow.js';
import type { AuthUser } from '../../core/auth-user.js';
import { readPage, type PageQuery } from '../../db/paging.js';
import { TokensStore, type NewToken, type TokenChanges, type TokenRow } from './store.js';
import { isExhausted, isExpired, toTokenPublic } from './view.js';
import { perContext } from '../../per-context.js';
import { usableGroups } from '../groups/usable.js';

export const KEY_LENGTH = 48;
export const NAME_SUFFIX_LENGTH = 6;
export const TOKEN_NOT_FOUND = 'token not found';
export const CANNOT_ENABLE_EXPIRED =
  'the token has expired and cannot be enabled: change its expiry time or set it to never expire first';
export const CANNOT_ENABLE_EXHAUSTED =
  'the token has no quota left and cannot be enabled: change its remaining quota or make it unlimited first';

const bit = (v: boolean) => (v ? 1 : 0);

/** What token rules need: the table (keys sealed by the secret box), the options, and the relay's ear for changes. */
export type TokensDeps = Pick<AppContext, 'db' | 'secretBox' | 'options' | 'tokenChanges'>;

/**
 * API token rules. A user sees and changes only their own tokens (every query is scoped to the owner); every
 * change tells the relay so its token cache and balances follow at once, here and on other nodes.
 */
export class TokensService {
  readonly store: TokensStore;

  constructor(private readonly deps: TokensDeps) {
    this.store = new TokensStore(deps.db, deps.secretBox);
  }

  private changed(t: Pick<TokenRow, 'key' | 'id'>): void {
    this.deps.tokenChanges.emit(t.key, t.id);
  }

  /** Groups the user may put on a token: the keys of UserUsableGroups plus their own group. */
  usableGroups(user: AuthUser): string[] {
    return Object.keys(usableGroups(this.deps.options, user.group));
  }

  private checkGroup(user: AuthUser, group: string): void {
    if (group && !this.usableGroups(user).includes(group))
      throw coded(ErrorCode.TokenGroupUnavailable, `group: "${group}" is not available to you`, { group });
  }

  private checkAllowIps(text: string): void {
    const bad = invalidIpLine(text);
    if (bad !== undefined)
      throw coded(
        ErrorCode.TokenAllowIpsInvalid,
        `allow_ips: "${bad}" is not a valid IP address or CIDR range (one per line)`,
        { ip: bad },
      );
  }

  /** At most token_setting.max_user_tokens tokens per user (new-api's cap); two creations at once may pass it by a few. */
  private async checkTokenCount(userId: number, adding: number): Promise<void> {
    const max = this.deps.options.num('token_setting.max_user_tokens');
    const have = await this.store.countOwn(userId);
    if (have + adding > max)
      throw coded(
        ErrorCode.TokenLimitReached,
        `you can have at most ${max} tokens (you have ${have}); delete some first`,
        { max, have },
      );
  }

  page(userId: number, q: PageQuery & { size?: number; keyword?: string; token?: string }) {
    const token = q.token ?? '';
    const key = token.startsWith(TOKEN_KEY_PREFIX) ? token.slice(TOKEN_KEY_PREFIX.length) : token;
    const now = nowSeconds();
    return readPage(
      { p: q.p, page_size: q.size ?? q.page_size },
      (w) => this.store.page(userId, { ...w, name: q.keyword, key }),
      (t) => toTokenPublic(t, now),
    );
  }

  async get(userId: number, id: number): Promise<TokenPublic> {
    const t = await this.store.findOwn(userId, id);
    if (!t) throw notFound(TOKEN_NOT_FOUND, ErrorCode.TokenNotFound);
    return toTokenPublic(t);
  }

  /** Creates `count` tokens; the first keeps the name, the others get a random 6-character suffix. */
  async create(user: AuthUser, body: CreateTokenBody): Promise<TokenPublic[]> {
    this.checkAllowIps(body.allow_ips);
    this.checkGroup(user, body.group);
    const now = nowSeconds();
    if (isExpired({ expired_time: body.expired_time }, now))
      throw coded(ErrorCode.TokenExpiredInPast, 'expired_time: the expiry time is in the past');
    await this.checkTokenCount(user.id, body.count);
    const rows: NewToken[] = [];
    for (let i = 0; i < body.count; i++) {
      rows.push({
        user_id: user.id,
        key: randomString(KEY_LENGTH),
        status: TokenStatus.Enabled,
        name: i === 0 ? body.name : `${body.name}-${randomString(NAME_SUFFIX_LENGTH)}`,
        created_time: now,
        accessed_time: now,
        expired_time: body.expired_time,
        remain_quota: body.remain_quota,
        unlimited_quota: bit(body.unlimited_quota),
        used_quota: 0,
        model_limits_enabled: bit(body.model_limits_enabled),
        model_limits: body.model_limits,
        allow_ips: body.allow_ips,
        group: body.group,
        rate_limit_enabled: bit(body.rate_limit_enabled),
        rate_limit_period: body.rate_limit_period,
        rate_limit_count: body.rate_limit_count,
        rate_limit_success: body.rate_limit_success,
        rpm_limit: body.rpm_limit,
        tpm_limit: body.tpm_limit,
        cross_group_retry: bit(body.cross_group_retry),
        concurrency_limit: body.concurrency_limit,
        mcp_allow_tools: body.mcp_allow_tools,
        mcp_deny_tools: body.mcp_deny_tools,
        ...periodLimitValues(body),
        deleted_at: null,
      });
    }
    const stored = await this.store.insertMany(rows);
    // A key tried before it existed may sit in the relay's negative cache.
    for (const t of stored) this.changed(t);
    // The creator sees the new keys once in full; every later read masks them.
    return stored.map((t) => toTokenPublic(t, now, true));
  }

  /**
   * Full update (fields present change) or, with statusOnly, just the status. Enabling an expired or
   * exhausted token is refused unless this same request gives it a future expiry or quota.
   */
  async update(user: AuthUser, body: UpdateTokenBody, statusOnly: boolean): Promise<TokenPublic> {
    const current = await this.store.findOwn(user.id, body.id);
    if (!current) throw notFound(TOKEN_NOT_FOUND, ErrorCode.TokenNotFound);
    const changes: TokenChanges = {};
    if (statusOnly) {
      if (body.status === undefined) throw coded(ErrorCode.StatusRequired, 'status is required');
    } else {
      if (body.name !== undefined) changes.name = body.name;
      if (body.remain_quota !== undefined) changes.remain_quota = body.remain_quota;
      if (body.unlimited_quota !== undefined) changes.unlimited_quota = bit(body.unlimited_quota);
      if (body.expired_time !== undefined) changes.expired_time = body.expired_time;
      if (body.model_limits_enabled !== undefined) changes.model_limits_enabled = bit(body.model_limits_enabled);
      if (body.model_limits !== undefined) changes.model_limits = body.model_limits;
      if (body.allow_ips !== undefined) {
        this.checkAllowIps(body.allow_ips);
        changes.allow_ips = body.allow_ips;
      }
      if (body.group !== undefined && body.group !== current.group) {
        this.checkGroup(user, body.group);
        changes.group = body.group;
      }
      if (body.rate_limit_enabled !== undefined) changes.rate_limit_enabled = bit(body.rate_limit_enabled);
      if (body.rate_limit_period !== undefined) changes.rate_limit_period = body.rate_limit_period;
      if (body.rate_limit_count !== undefined) changes.rate_limit_count = body.rate_limit_count;
      if (body.rate_limit_success !== undefined) changes.rate_limit_success = body.rate_limit_success;
      if (body.rpm_limit !== undefined) changes.rpm_limit = body.rpm_limit;
      if (body.tpm_limit !== undefined) changes.tpm_limit = body.tpm_limit;
      if (body.cross_group_retry !== undefined) changes.cross_group_retry = bit(body.cross_group_retry);
      if (body.concurrency_limit !== undefined) changes.concurrency_limit = body.concurrency_limit;
      if (body.mcp_allow_tools !== undefined) changes.mcp_allow_tools = body.mcp_allow_tools;
      if (body.mcp_deny_tools !== undefined) changes.mcp_deny_tools = body.mcp_deny_tools;
      for (const k of PERIOD_LIMIT_KEYS) if (body[k] !== undefined) changes[k] = body[k];
    }
    // 3 and 4 are derived states: a full update that sends them back (an edited list row) leaves the status alone.
    if (body.status === TokenStatus.Enabled || body.status === TokenStatus.Disabled) {
      const next = { ...current, ...changes } as TokenRow;
      if (body.status === TokenStatus.Enabled) {
        if (isExpired(next)) throw coded(ErrorCode.TokenCannotEnableExpired, CANNOT_ENABLE_EXPIRED);
        if (isExhausted(next)) throw coded(ErrorCode.TokenCannotEnableExhausted, CANNOT_ENABLE_EXHAUSTED);
      }
      changes.status = body.status;
    } else if (statusOnly) {
      throw coded(ErrorCode.StatusInvalid, 'status must be 1 (enabled) or 2 (disabled)');
    }
    if (!(await this.store.update(user.id, current.id, changes)))
      throw notFound(TOKEN_NOT_FOUND, ErrorCode.TokenNotFound);
    this.changed(current);
    const updated = await this.store.findOwn(user.id, current.id);
    if (!updated) throw notFound(TOKEN_NOT_FOUND, ErrorCode.TokenNotFound);
    return toTokenPublic(updated);
  }

  /** The full key (without sk-) of an own token. */
  async key(userId: number, id: number): Promise<{ key: string }> {
    const t = await this.store.findOwn(userId, id);
    if (!t) throw notFound(TOKEN_NOT_FOUND, ErrorCode.TokenNotFound);
    return { key: t.key };
  }

  /** The full keys of the caller's tokens among `ids`, by id; others' ids are left out. */
  async keys(userId: number, ids: number[]): Promise<{ keys: Record<string, string> }> {
    if (ids.length > TOKEN_KEYS_BATCH_MAX)
      throw coded(ErrorCode.TokenBatchTooMany, `at most ${TOKEN_KEYS_BATCH_MAX} tokens at a time`, {
        max: TOKEN_KEYS_BATCH_MAX,
      });
    const rows = await this.store.findOwnMany(userId, [...new Set(ids)]);
    return { keys: Object.fromEntries(rows.map((t) => [String(t.id), t.key])) };
  }

  /** Soft-deletes the caller's tokens among `ids` (others' ids are ignored); returns how many were deleted. */
  async removeMany(userId: number, ids: number[]): Promise<number> {
    const unique = [...new Set(ids)];
    const rows = await this.store.findOwnMany(userId, unique);
    if (rows.length === 0) return 0;
    const n = await this.store.softDeleteMany(
      userId,
      rows.map((t) => t.id),
      new Date().toISOString(),
    );
    for (const t of rows) this.changed(t);
    return n;
  }

  /** Soft delete: the row stays (its logs keep the name) and the key stops working at once. */
  async remove(userId: number, id: number): Promise<void> {
    const t = await this.store.findOwn(userId, id);
    if (!t || !(await this.store.softDelete(userId, id, new Date().toISOString())))
      throw notFound(TOKEN_NOT_FOUND, ErrorCode.TokenNotFound);
    this.changed(t);
  }
}

/** The token service of a context (one per running app). */
export const tokensOf = perContext((ctx) => new TokensService(ctx));
