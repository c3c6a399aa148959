import { describe, expect, it } from 'vitest';
import type { Token } from '../src/features/tokens/api';
import { formDefaults, tokenFormSchema, toInput } from '../src/features/tokens/schema';

const token = {
  id: 1,
  user_id: 1,
  key: 'abcd****wxyz',
  status: 1,
  name: 'limited',
  created_time: 1,
  accessed_time: 1,
  expired_time: -1,
  remain_quota: 0,
  unlimited_quota: true,
  used_quota: 0,
  model_limits_enabled: false,
  model_limits: '',
  allow_ips: '',
  group: '',
  rate_limit_enabled: false,
  rate_limit_period: 60,
  rate_limit_count: 0,
  rate_limit_success: 0,
  rpm_limit: 0,
  tpm_limit: 0,
  cross_group_retry: false,
  concurrency_limit: 0,
  mcp_allow_tools: '',
  mcp_deny_tools: '',
  quota_per_day: 500_000,
  quota_per_week: 0,
  quota_per_month: 10_000_000,
  quota_per_5h: 250_000,
  requests_per_day: 100,
} satisfies Token;

describe("the token editor's period limit fields", () => {
  it('reads the limits of a token and sends them back; a new token starts without any', () => {
    const input = toInput(formDefaults(token));
    expect(input).toMatchObject({
      quota_per_day: 500_000,
      quota_per_week: 0,
      quota_per_month: 10_000_000,
      quota_per_5h: 250_000,
      requests_per_day: 100,
    });
    expect(toInput(formDefaults())).toMatchObject({
      quota_per_day: 0,
      quota_per_week: 0,
      quota_per_month: 0,
      quota_per_5h: 0,
      requests_per_day: 0,
    });
  });

  it('refuses a negative, fractional or too large limit', () => {
    const form = formDefaults(token);
    const issues = (v: object) =>
      tokenFormSchema(false)
        .safeParse({ ...form, ...v })
        .error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues({ quota_per_day: -1 })).toEqual(['quota_per_day: tokens:validation.periodLimit']);
    expect(issues({ quota_per_5h: 1.5 })).toEqual(['quota_per_5h: tokens:validation.periodLimit']);
    expect(issues({ requests_per_day: 3_000_000_000 })).toEqual(['requests_per_day: tokens:validation.periodLimit']);
    expect(issues({ quota_per_week: 7 })).toEqual([]);
  });
});
