import { periodLimitValues, TokenStatus, type TokenPublic } from '@tollway/shared';
import { nowSeconds } from '../../lib/time.js';
import type { TokenRow } from './store.js';

type Validity = Pick<TokenRow, 'expired_time' | 'remain_quota' | 'unlimited_quota'>;

/** Past its expiry (-1 never expires). */
export const isExpired = (t: Pick<TokenRow, 'expired_time'>, now = nowSeconds()): boolean =>
  Number(t.expired_time) !== -1 && Number(t.expired_time) < now;

/** No quota left on a limited token. */
export const isExhausted = (t: Pick<TokenRow, 'remain_quota' | 'unlimited_quota'>): boolean =>
  t.unlimited_quota !== 1 && Number(t.remain_quota) <= 0;

/** The status to show: an enabled token that is expired shows 3, one that is used up shows 4. */
export function displayStatus(t: Pick<TokenRow, 'status'> & Validity, now = nowSeconds()): number {
  if (t.status !== TokenStatus.Enabled) return t.status;
  if (isExpired(t, now)) return TokenStatus.Expired;
  if (isExhausted(t)) return TokenStatus.Exhausted;
  return TokenStatus.Enabled;
}

/** Characters a masked key keeps at each end; shorter keys keep fewer. */
const SHOWN_END = 4;
const SHOWN_END_SHORT = 2;
const SHORT_KEY = 8;
const HIDDEN_MARK = '**********';
const HIDDEN_MARK_SHORT = '****';

/** A key as lists show it: the first and last 4 characters around ten stars (short keys show less). */
export function maskTokenKey(key: string): string {
  if (key.length <= SHOWN_END) return '*'.repeat(key.length);
  if (key.length <= SHORT_KEY)
    return `${key.slice(0, SHOWN_END_SHORT)}${HIDDEN_MARK_SHORT}${key.slice(-SHOWN_END_SHORT)}`;
  return `${key.slice(0, SHOWN_END)}${HIDDEN_MARK}${key.slice(-SHOWN_END)}`;
}

/**
 * A token for its owner: flags as booleans, status for display, the key masked (`fullKey` only in the answer
 * that created it; POST /api/token/:id/key reveals it later).
 */
export function toTokenPublic(t: TokenRow, now = nowSeconds(), fullKey = false): TokenPublic {
  return {
    id: t.id,
    user_id: t.user_id,
    key: fullKey ? t.key : maskTokenKey(t.key),
    status: displayStatus(t, now),
    name: t.name,
    created_time: Number(t.created_time),
    accessed_time: Number(t.accessed_time),
    expired_time: Number(t.expired_time),
    remain_quota: Number(t.remain_quota),
    unlimited_quota: t.unlimited_quota === 1,
    used_quota: Number(t.used_quota),
    model_limits_enabled: t.model_limits_enabled === 1,
    model_limits: t.model_limits ?? '',
    allow_ips: t.allow_ips ?? '',
    group: t.group,
    rate_limit_enabled: t.rate_limit_enabled === 1,
    rate_limit_period: t.rate_limit_period,
    rate_limit_count: t.rate_limit_count,
    rate_limit_success: t.rate_limit_success,
    rpm_limit: Number(t.rpm_limit),
    tpm_limit: Number(t.tpm_limit),
    cross_group_retry: Number(t.cross_group_retry) === 1,
    concurrency_limit: Number(t.concurrency_limit ?? 0),
    mcp_allow_tools: t.mcp_allow_tools ?? '',
    mcp_deny_tools: t.mcp_deny_tools ?? '',
    ...periodLimitValues(t),
  };
}
