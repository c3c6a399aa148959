import { TOKEN_DEFAULTS, TokenStatus } from '@tollway/shared';
import type { NewToken } from '../../src/modules/tokens/store.js';

/**
 * A tokens row written straight to the table by tests: user 1's enabled token that never expires, with no quota
 * (limited), no model or IP limit and the default request-rate window switched off; `over` sets the rest. `key` is
 * stored as given (seal it first when the app runs with CRYPTO_SECRET).
 */
export function tokenRow(key: string, over: Partial<NewToken> = {}): NewToken {
  return {
    user_id: 1,
    key,
    status: TokenStatus.Enabled,
    name: 'test-token',
    created_time: 0,
    accessed_time: 0,
    expired_time: -1,
    remain_quota: 0,
    unlimited_quota: 0,
    used_quota: 0,
    model_limits_enabled: 0,
    model_limits: '',
    allow_ips: '',
    group: '',
    rate_limit_enabled: 0,
    rate_limit_period: TOKEN_DEFAULTS.rate_limit_period,
    rate_limit_count: TOKEN_DEFAULTS.rate_limit_count,
    rate_limit_success: TOKEN_DEFAULTS.rate_limit_success,
    deleted_at: null,
    ...over,
  };
}
