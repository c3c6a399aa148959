import { z } from 'zod';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';
import { QUOTA_MAX } from '../quota.js';
import { pageQuery, queryBool } from './common.js';
import { perMinute } from '../rate-limits.js';
import { CONCURRENCY_LIMIT_MAX } from '../model-fallbacks.js';
import { periodLimitFields, periodLimitsPublic, periodRemaining } from '../period-limits.js';
import { mcpToolListFields } from './mcp-server.js';

/** Token status: 1 enabled, 2 disabled, 3 expired, 4 exhausted (3 and 4 are also derived for display). */
export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;

/** Defaults for a new token. */
export const TOKEN_DEFAULTS = {
  remain_quota: 500000,
  expired_time: -1,
  rate_limit_period: 60,
  rate_limit_count: 1000,
  rate_limit_success: 10,
} as const;

export const TOKEN_NAME_MAX = 50;
/** Most tokens one create call makes. */
export const TOKEN_MAX_BATCH = 100;
/**
 * API keys are stored and sent in JSON without a prefix (as new-api does); the console shows and copies them
 * as `sk-<key>`, and the relay accepts both forms.
 */
export const TOKEN_KEY_PREFIX = 'sk-';
/** Latest accepted expiry (9999-12-31 23:59:59 UTC). */
const MAX_EPOCH = 253402300799;

/**
 * An expiry as epoch seconds: -1 (never), a positive number of seconds (also as digits in a string), or the
 * form "yyyy-MM-dd HH:mm:ss" (seconds optional, `T` allowed) read in the local time zone of whoever parses it.
 * Undefined when the value is none of these.
 */
export function parseExpiry(v: number | string): number | undefined {
  if (typeof v === 'number') return v === -1 || (Number.isInteger(v) && v > 0 && v <= MAX_EPOCH) ? v : undefined;
  const s = v.trim();
  if (/^-?\d+$/.test(s)) return parseExpiry(Number(s));
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
  // Round trip: 2025-02-30 or 25:00 are refused rather than rolled over.
  if (
    date.getFullYear() !== y ||
    date.getMonth() !== mo - 1 ||
    date.getDate() !== d ||
    date.getHours() !== h ||
    date.getMinutes() !== mi
  )
    return undefined;
  return parseExpiry(Math.floor(date.getTime() / 1000));
}

const EXPIRY_FORMAT = 'expiry time format is wrong: use -1 (never), epoch seconds or "yyyy-MM-dd HH:mm:ss"';

/** true/false, or 1/0 as stored in the database. */
const flag = (field: string) =>
  z
    .union([z.boolean(), z.literal(0), z.literal(1)], { error: `${field} must be true or false` })
    .transform((v) => v === true || v === 1);

const count = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number` })
    .int(`${field} must be an integer`)
    .min(min, `${field} must be at least ${min}`)
    .max(max, `${field} must be at most ${max}`);

/** Model names as a comma string or a list; stored as a comma string without blanks or duplicates. */
const modelList = z
  .union([z.string().max(100_000), z.array(z.string().max(191)).max(5_000)], {
    error: 'model_limits must be a comma separated text or a list of model names',
  })
  .transform((v) =>
    [...new Set((Array.isArray(v) ? v : v.split(/[,\n]/)).map((s) => s.trim()).filter(Boolean))].join(','),
  );

const tokenFields = {
  name: z
    .string({ error: 'name must be a string' })
    .trim()
    .min(1, 'name is required')
    .max(TOKEN_NAME_MAX, `name must be at most ${TOKEN_NAME_MAX} characters`),
  remain_quota: count('remain_quota', 0, QUOTA_MAX),
  unlimited_quota: flag('unlimited_quota'),
  expired_time: z.union([z.number(), z.string().max(40)], { error: EXPIRY_FORMAT }).transform((v, ctx) => {
    const at = parseExpiry(v);
    if (at === undefined) {
      ctx.addIssue({ code: 'custom', ...inputRule(ErrorCode.TokenExpiryFormat, EXPIRY_FORMAT) });
      return z.NEVER;
    }
    return at;
  }),
  model_limits_enabled: flag('model_limits_enabled'),
  model_limits: modelList,
  /** One IP or CIDR per line; each line is checked by the server. */
  allow_ips: z
    .string({ error: 'allow_ips must be a text with one IP or CIDR per line' })
    .max(10_000, 'allow_ips must be at most 10000 characters')
    .nullable()
    .transform((v) => (v ?? '').trim()),
  /** '' means the owner's group. */
  group: z.string({ error: 'group must be a string' }).trim().max(64, 'group must be at most 64 characters'),
  rate_limit_enabled: flag('rate_limit_enabled'),
  rate_limit_period: count('rate_limit_period', 1, 2_592_000),
  rate_limit_count: count('rate_limit_count', 0, 1_000_000_000),
  rate_limit_success: count('rate_limit_success', 0, 1_000_000_000),
  /** Requests and tokens per minute (0: no limit). */
  rpm_limit: perMinute('rpm_limit'),
  tpm_limit: perMinute('tpm_limit'),
  /** new-api's switch: an `auto` token's call moves on to the next auto group when its group has no channel left. */
  cross_group_retry: flag('cross_group_retry'),
  /** Calls in flight at once (0: the TokenConcurrencyLimit option's). */
  concurrency_limit: count('concurrency_limit', 0, CONCURRENCY_LIMIT_MAX),
  /** Quota per day, week, month and rolling 5 hours, requests per day (0: none). */
  ...periodLimitFields,
  /** MCP tools the token may use: `<server>__<tool>` patterns, comma-separated ('' every tool its group may use). */
  ...mcpToolListFields,
};

/** POST /api/token/: `count` tokens (the extra ones named with a random 6-character suffix). */
export const createTokenBody = z.object({
  name: tokenFields.name,
  remain_quota: tokenFields.remain_quota.default(TOKEN_DEFAULTS.remain_quota),
  unlimited_quota: tokenFields.unlimited_quota.default(false),
  expired_time: tokenFields.expired_time.default(TOKEN_DEFAULTS.expired_time),
  model_limits_enabled: tokenFields.model_limits_enabled.default(false),
  model_limits: tokenFields.model_limits.default(''),
  allow_ips: tokenFields.allow_ips.default(''),
  group: tokenFields.group.default(''),
  rate_limit_enabled: tokenFields.rate_limit_enabled.default(false),
  rate_limit_period: tokenFields.rate_limit_period.default(TOKEN_DEFAULTS.rate_limit_period),
  rate_limit_count: tokenFields.rate_limit_count.default(TOKEN_DEFAULTS.rate_limit_count),
  rate_limit_success: tokenFields.rate_limit_success.default(TOKEN_DEFAULTS.rate_limit_success),
  rpm_limit: tokenFields.rpm_limit.default(0),
  tpm_limit: tokenFields.tpm_limit.default(0),
  cross_group_retry: tokenFields.cross_group_retry.default(false),
  concurrency_limit: tokenFields.concurrency_limit.default(0),
  quota_per_day: tokenFields.quota_per_day.default(0),
  quota_per_week: tokenFields.quota_per_week.default(0),
  quota_per_month: tokenFields.quota_per_month.default(0),
  quota_per_5h: tokenFields.quota_per_5h.default(0),
  requests_per_day: tokenFields.requests_per_day.default(0),
  mcp_allow_tools: tokenFields.mcp_allow_tools.default(''),
  mcp_deny_tools: tokenFields.mcp_deny_tools.default(''),
  count: count('count', 1, TOKEN_MAX_BATCH).default(1),
});
export type CreateTokenBody = z.infer<typeof createTokenBody>;

/**
 * PUT /api/token/: id plus the fields to change (missing ones keep their values). With ?status_only=true only
 * id and status are read. Status 3/4 are derived and ignored in a full update; enabling (1) an expired or
 * exhausted token is refused unless the same request fixes its expiry or quota.
 */
export const updateTokenBody = z.object({
  id: z.number({ error: 'id must be a number' }).int('id must be an integer').positive('id must be positive'),
  status: count('status', 1, 4).optional(),
  name: tokenFields.name.optional(),
  remain_quota: tokenFields.remain_quota.optional(),
  unlimited_quota: tokenFields.unlimited_quota.optional(),
  expired_time: tokenFields.expired_time.optional(),
  model_limits_enabled: tokenFields.model_limits_enabled.optional(),
  model_limits: tokenFields.model_limits.optional(),
  allow_ips: tokenFields.allow_ips.optional(),
  group: tokenFields.group.optional(),
  rate_limit_enabled: tokenFields.rate_limit_enabled.optional(),
  rate_limit_period: tokenFields.rate_limit_period.optional(),
  rate_limit_count: tokenFields.rate_limit_count.optional(),
  rate_limit_success: tokenFields.rate_limit_success.optional(),
  rpm_limit: tokenFields.rpm_limit.optional(),
  tpm_limit: tokenFields.tpm_limit.optional(),
  cross_group_retry: tokenFields.cross_group_retry.optional(),
  concurrency_limit: tokenFields.concurrency_limit.optional(),
  quota_per_day: tokenFields.quota_per_day.optional(),
  quota_per_week: tokenFields.quota_per_week.optional(),
  quota_per_month: tokenFields.quota_per_month.optional(),
  quota_per_5h: tokenFields.quota_per_5h.optional(),
  requests_per_day: tokenFields.requests_per_day.optional(),
  mcp_allow_tools: tokenFields.mcp_allow_tools.optional(),
  mcp_deny_tools: tokenFields.mcp_deny_tools.optional(),
});
export type UpdateTokenBody = z.infer<typeof updateTokenBody>;

export const updateTokenQuery = z.object({ status_only: queryBool.optional() });

/** GET /api/token/?p=&size= (page_size is accepted too; size wins). */
export const tokenPageQuery = pageQuery.extend({
  size: z.coerce.number().int().min(1).max(100).optional(),
});

/** GET /api/token/search: keyword matches the name, token matches the key (with or without sk-). */
export const tokenSearchQuery = tokenPageQuery.extend({
  keyword: z.string().trim().max(64).optional().default(''),
  token: z.string().trim().max(128).optional().default(''),
});

/** A token as the API returns it. `key` is masked (first 4 and last 4 characters); POST /api/token/:id/key reveals it. */
export const tokenPublic = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  key: z.string(),
  /** Stored status, except that an enabled token past its expiry shows 3 and one without quota shows 4. */
  status: z.number().int(),
  name: z.string(),
  created_time: z.number().int(),
  accessed_time: z.number().int(),
  expired_time: z.number().int(),
  remain_quota: z.number().int(),
  unlimited_quota: z.boolean(),
  used_quota: z.number().int(),
  model_limits_enabled: z.boolean(),
  model_limits: z.string(),
  allow_ips: z.string(),
  group: z.string(),
  rate_limit_enabled: z.boolean(),
  rate_limit_period: z.number().int(),
  rate_limit_count: z.number().int(),
  rate_limit_success: z.number().int(),
  rpm_limit: z.number().int(),
  tpm_limit: z.number().int(),
  cross_group_retry: z.boolean(),
  concurrency_limit: z.number().int(),
  mcp_allow_tools: z.string(),
  mcp_deny_tools: z.string(),
  ...periodLimitsPublic,
  /** What is left of each period limit set on the token (lists and the single view; absent when none is set). */
  period_limits: z.array(periodRemaining).optional(),
});
export type TokenPublic = z.infer<typeof tokenPublic>;

/** Most ids one POST /api/token/batch/keys reveals. */
export const TOKEN_KEYS_BATCH_MAX = 100;

/** POST /api/token/batch (delete) and /api/token/batch/keys (reveal): the caller's token ids. */
export const tokenIdsBody = z.object({
  ids: z.array(z.number().int().positive()).min(1, 'please select tokens first').max(10_000),
});

/** A revealed key, without the sk- prefix. */
export const tokenKeyAnswer = z.object({ key: z.string() });

/** Revealed keys by token id (ids that are not the caller's are absent). */
export const tokenKeysAnswer = z.object({ keys: z.record(z.string(), z.string()) });
