import type { Db } from '../db/connect.js';
import { IpAllowList } from '../lib/ip-allow.js';

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
  /** Token group ('' means the user's group). */
  group: string;
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
  loadedAt: number;
}

const NEGATIVE_TTL_MS = 5_000;

/**
 * API tokens by key, loaded on first use and kept until invalidated (token or user change on this node, a
 * bus message from another) or older than the sync interval. Unknown keys are remembered briefly so a flood
 * of bad keys does not reach the database.
 */
export class TokenAuthCache {
  private readonly byKey = new Map<string, TokenAuth | number>();
  private readonly loading = new Map<string, Promise<TokenAuth | undefined>>();

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs: number,
    /** Whether a user of the first group may use the second now (options in memory, read on every call). */
    readonly groupUsable: (userGroup: string, group: string) => boolean,
    /** The stored form of a presented key (sealed with CRYPTO_SECRET); computed on a cache miss only. */
    private readonly storedKey: (key: string) => string = (key) => key,
  ) {}

  async get(key: string, now = Date.now()): Promise<TokenAuth | undefined> {
    const hit = this.byKey.get(key);
    if (hit !== undefined) {
      if (typeof hit === 'number') {
        if (now - hit < NEGATIVE_TTL_MS) return undefined;
      } else if (now - hit.loadedAt < this.maxAgeMs) return hit;
    }
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
      .select([
        't.id as tokenId',
        't.name',
        't.status',
        't.expired_time',
        't.unlimited_quota',
        't.model_limits_enabled',
        't.model_limits',
        't.allow_ips',
        't.group',
        't.rate_limit_enabled',
        't.rate_limit_period',
        't.rate_limit_count',
        't.rate_limit_success',
        't.rpm_limit as tokenRpm',
        't.tpm_limit as tokenTpm',
        'u.rpm_limit as userRpm',
        'u.tpm_limit as userTpm',
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
      this.byKey.set(key, now);
      return undefined;
    }
    let acceptUnset: boolean;
    try {
      acceptUnset = Boolean((JSON.parse(row.userSetting || '{}') as { accept_unset_model_ratio_model?: boolean }).accept_unset_model_ratio_model);
    } catch {
      acceptUnset = false;
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
      userId: row.userId,
      username: row.username,
      userStatus: row.userStatus,
      userRole: row.userRole,
      userGroup: row.userGroup,
      acceptUnsetRatio: acceptUnset,
      rateLimit:
        row.rate_limit_enabled === 1 && row.rate_limit_period > 0
          ? { periodSeconds: row.rate_limit_period, count: row.rate_limit_count, success: row.rate_limit_success }
          : undefined,
      perMinute: { tokenRpm: Number(row.tokenRpm), tokenTpm: Number(row.tokenTpm), userRpm: Number(row.userRpm), userTpm: Number(row.userTpm) },
      loadedAt: now,
    };
    this.byKey.set(key, auth);
    return auth;
  }

  invalidateKey(key: string): void {
    this.byKey.delete(key);
  }

  invalidateUser(userId: number): void {
    for (const [k, v] of this.byKey) if (typeof v !== 'number' && v.userId === userId) this.byKey.delete(k);
  }

  clear(): void {
    this.byKey.clear();
  }
}
