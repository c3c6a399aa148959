import dayjs from 'dayjs';
import { z } from 'zod';
import {
  AUTO_GROUP,
  MCP_MAX_PATTERN_LIST,
  periodLimitValues,
  TOKEN_DEFAULTS,
  TOKEN_MAX_BATCH,
  TOKEN_NAME_MAX,
  type PeriodLimitValues,
} from '@tollway/shared';
import { periodLimitFormFields } from '../../lib/period-limits';
import type { Token, TokenInput } from './api';

const NO_PERIOD_LIMITS: PeriodLimitValues = {
  quota_per_day: 0,
  quota_per_week: 0,
  quota_per_month: 0,
  quota_per_5h: 0,
  requests_per_day: 0,
};

export const EXPIRY_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** Quick amounts (500000 quota = $1). */
export const QUICK_AMOUNTS = [500000, 5000000, 25000000, 50000000, 250000000, 500000000] as const;
/** Creation count choices. */
export const COUNT_CHOICES = [10, 20, 30, 100] as const;
/** Expiry presets, in seconds from now (0: never). */
export const EXPIRY_PRESETS = [
  { key: 'never', seconds: 0 },
  { key: 'hour', seconds: 3600 },
  { key: 'day', seconds: 86400 },
  { key: 'month', seconds: 30 * 86400 },
] as const;

/**
 * An expiry text as epoch seconds: '' or -1 → -1 (never); "yyyy-MM-dd HH:mm[:ss]" (T allowed) in local time.
 * Undefined when the text is not a real date (2025-02-30 is refused, not rolled over).
 */
export function parseExpiryText(text: string): number | undefined {
  const s = text.trim();
  if (s === '' || s === '-1') return -1;
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(y, mo - 1, d, h, mi, sec);
  if (
    date.getFullYear() !== y ||
    date.getMonth() !== mo - 1 ||
    date.getDate() !== d ||
    date.getHours() !== h ||
    date.getMinutes() !== mi ||
    sec > 59
  ) {
    return undefined;
  }
  return Math.floor(date.getTime() / 1000);
}

export const formatExpiry = (epoch: number) => (epoch === -1 ? '' : dayjs.unix(epoch).format(EXPIRY_FORMAT));

/** Requests or tokens per minute, or calls at once: a whole number, 0 meaning no limit. */
const perMinute = z
  .number('tokens:validation.perMinute')
  .int('tokens:validation.perMinute')
  .min(0, 'tokens:validation.perMinute');
/** Longest rate-limit window the server accepts (30 days, in seconds). */
export const RATE_PERIOD_MAX = 2_592_000;
/** Most requests a rate-limit window can allow. */
export const RATE_COUNT_MAX = 1_000_000_000;
const whole = (min: number, max: number, msg: string) => z.number(msg).int(msg).min(min, msg).max(max, msg);

/** Form state of the token editor. Messages are i18n keys, translated by the shell's FormField. */
export const tokenFormSchema = (creating: boolean) =>
  z
    .object({
      name: z
        .string()
        .trim()
        .min(1, 'tokens:validation.nameRequired')
        .max(TOKEN_NAME_MAX, 'tokens:validation.nameTooLong'),
      remain_quota: z
        .number('tokens:validation.quotaInteger')
        .int('tokens:validation.quotaInteger')
        .min(0, 'tokens:validation.quotaMin'),
      unlimited_quota: z.boolean(),
      expired_time: z.string(),
      count: z
        .number('tokens:validation.countInteger')
        .int('tokens:validation.countInteger')
        .min(1, 'tokens:validation.countInteger')
        .max(TOKEN_MAX_BATCH, 'tokens:validation.countMax'),
      model_limits_enabled: z.boolean(),
      model_limits: z.array(z.string()),
      allow_ips: z.string().max(10_000, 'tokens:validation.ipsTooLong'),
      mcp_allow_tools: z.string().trim().max(MCP_MAX_PATTERN_LIST, 'tokens:validation.mcpTooLong'),
      mcp_deny_tools: z.string().trim().max(MCP_MAX_PATTERN_LIST, 'tokens:validation.mcpTooLong'),
      group: z.string(),
      cross_group_retry: z.boolean(),
      rpm_limit: perMinute,
      tpm_limit: perMinute,
      concurrency_limit: perMinute,
      rate_limit_enabled: z.boolean(),
      rate_limit_period: whole(1, RATE_PERIOD_MAX, 'tokens:validation.ratePeriod'),
      rate_limit_count: whole(0, RATE_COUNT_MAX, 'tokens:validation.rateCount'),
      rate_limit_success: whole(0, RATE_COUNT_MAX, 'tokens:validation.rateCount'),
      ...periodLimitFormFields('tokens:validation.periodLimit'),
    })
    .superRefine((v, ctx) => {
      const at = parseExpiryText(v.expired_time);
      if (at === undefined)
        ctx.addIssue({ code: 'custom', path: ['expired_time'], message: 'tokens:validation.expiryFormat' });
      else if (creating && at !== -1 && at <= Date.now() / 1000)
        ctx.addIssue({ code: 'custom', path: ['expired_time'], message: 'tokens:validation.expiryPast' });
    });
export type TokenForm = z.infer<ReturnType<typeof tokenFormSchema>>;

export function formDefaults(token?: Token): TokenForm {
  if (!token) {
    return {
      name: '',
      remain_quota: TOKEN_DEFAULTS.remain_quota,
      unlimited_quota: false,
      expired_time: '',
      count: 1,
      model_limits_enabled: false,
      model_limits: [],
      allow_ips: '',
      mcp_allow_tools: '',
      mcp_deny_tools: '',
      group: '',
      cross_group_retry: false,
      rpm_limit: 0,
      tpm_limit: 0,
      concurrency_limit: 0,
      rate_limit_enabled: false,
      rate_limit_period: TOKEN_DEFAULTS.rate_limit_period,
      rate_limit_count: TOKEN_DEFAULTS.rate_limit_count,
      rate_limit_success: TOKEN_DEFAULTS.rate_limit_success,
      ...NO_PERIOD_LIMITS,
    };
  }
  return {
    name: token.name,
    remain_quota: token.remain_quota,
    unlimited_quota: token.unlimited_quota,
    expired_time: formatExpiry(token.expired_time),
    count: 1,
    model_limits_enabled: token.model_limits_enabled,
    model_limits: token.model_limits
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    allow_ips: token.allow_ips ?? '',
    mcp_allow_tools: token.mcp_allow_tools ?? '',
    mcp_deny_tools: token.mcp_deny_tools ?? '',
    group: token.group ?? '',
    cross_group_retry: token.cross_group_retry ?? false,
    rpm_limit: token.rpm_limit ?? 0,
    tpm_limit: token.tpm_limit ?? 0,
    concurrency_limit: token.concurrency_limit ?? 0,
    rate_limit_enabled: token.rate_limit_enabled ?? false,
    rate_limit_period: token.rate_limit_period ?? TOKEN_DEFAULTS.rate_limit_period,
    rate_limit_count: token.rate_limit_count ?? TOKEN_DEFAULTS.rate_limit_count,
    rate_limit_success: token.rate_limit_success ?? TOKEN_DEFAULTS.rate_limit_success,
    ...periodLimitValues({ ...NO_PERIOD_LIMITS, ...token }),
  };
}

/** The request body of the form (IPs one per line, blanks dropped; models joined with commas). */
export function toInput(v: TokenForm): TokenInput {
  return {
    name: v.name.trim(),
    remain_quota: v.remain_quota,
    unlimited_quota: v.unlimited_quota,
    expired_time: parseExpiryText(v.expired_time) ?? -1,
    model_limits_enabled: v.model_limits_enabled,
    model_limits: v.model_limits.join(','),
    allow_ips: v.allow_ips
      .split(/\r?\n/)
      .map((s) => s.trim())
      .filter(Boolean)
      .join('\n'),
    mcp_allow_tools: v.mcp_allow_tools,
    mcp_deny_tools: v.mcp_deny_tools,
    group: v.group,
    // new-api's switch has effect on an `auto` token only; kept off elsewhere so a later switch to auto starts off.
    cross_group_retry: v.group === AUTO_GROUP && v.cross_group_retry,
    rpm_limit: v.rpm_limit,
    tpm_limit: v.tpm_limit,
    concurrency_limit: v.concurrency_limit,
    rate_limit_enabled: v.rate_limit_enabled,
    rate_limit_period: v.rate_limit_period,
    rate_limit_count: v.rate_limit_count,
    rate_limit_success: v.rate_limit_success,
    ...periodLimitValues(v),
  };
}
