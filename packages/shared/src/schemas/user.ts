import { z } from 'zod';
import { BILLING_PREFERENCES, DEFAULT_BILLING_PREFERENCE } from './subscription.js';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';
import { quotaAmount, userRole } from './amounts.js';
import { perMinute } from '../rate-limits.js';
import { periodLimitFields, periodLimitsPublic, periodRemaining } from '../period-limits.js';
import { UserManageActions } from '../enums.js';

export const username = z
  .string()
  .trim()
  .min(1, 'username is required')
  .max(20, 'username must be at most 20 characters');
/** A name given to a new account or by a rename: never with '@', so a login name with '@' is always an email. */
export const newUsername = username.refine(
  (v) => !v.includes('@'),
  inputRule(ErrorCode.UsernameHasAt, 'username must not contain @'),
);

export const EMAIL_MAX_LENGTH = 64;
const EMAIL_LOCAL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/;
const EMAIL_DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** An email address: local@domain, the domain with a dot and letters for its last label; no spaces or quotes. */
export function isEmailAddress(value: string): boolean {
  if (value.length > EMAIL_MAX_LENGTH) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || value.indexOf('@') !== at) return false;
  const local = value.slice(0, at);
  const labels = value.slice(at + 1).split('.');
  if (!EMAIL_LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  return (
    labels.length >= 2 &&
    labels.every((l) => EMAIL_DOMAIN_LABEL.test(l)) &&
    /^[A-Za-z]{2,}$/.test(labels[labels.length - 1]!)
  );
}

export const EMAIL_INVALID_MESSAGE = 'invalid email address';
/** An email field that may be left empty ('' = none). */
export const optionalEmail = z
  .string()
  .trim()
  .max(EMAIL_MAX_LENGTH, `email must be at most ${EMAIL_MAX_LENGTH} characters`)
  .refine((v) => v === '' || isEmailAddress(v), inputRule(ErrorCode.EmailInvalid, EMAIL_INVALID_MESSAGE));
export const password = z
  .string()
  .min(8, 'password must be at least 8 characters')
  .max(72, 'password must be at most 72 characters');

/** A user as the API returns it (never with a password). */
export const userPublic = z.object({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  password: z.literal('').optional(),
  group: z.string(),
  role: z.number().int(),
  status: z.number().int(),
  quota: z.number().int(),
  used_quota: z.number().int(),
  request_count: z.number().int(),
  aff_code: z.string(),
  aff_count: z.number().int(),
  aff_quota: z.number().int(),
  aff_history_quota: z.number().int(),
  inviter_id: z.number().int(),
  email: z.string(),
  github_id: z.string(),
  oidc_id: z.string(),
  wechat_id: z.string(),
  telegram_id: z.string(),
  linux_do_id: z.string(),
  setting: z.string(),
  remark: z.string(),
  /** Requests and tokens per minute (0: no limit). */
  rpm_limit: z.number().int(),
  tpm_limit: z.number().int(),
  /** Quota per day, week, month and rolling 5 hours, requests per day (0: none). */
  ...periodLimitsPublic,
  /** The user's own view only: what is left of each period limit set on the user. */
  period_limits: z.array(periodRemaining).optional(),
  created_at: z.number().int(),
  DeletedAt: z.string().nullable(),
});
export type UserPublic = z.infer<typeof userPublic>;

export const loginBody = z.object({
  username: z.string().trim().min(1, 'please enter username and password').max(64),
  password: z.string().min(1, 'please enter username and password').max(128),
});

export const registerBody = z.object({
  username: newUsername,
  password,
  password2: z.string().max(128).optional(),
  email: optionalEmail.optional().default(''),
  verification_code: z.string().max(32).optional().default(''),
  // null (new-api's console without an invite link) is no invite code.
  aff_code: z
    .string()
    .trim()
    .max(32)
    .nullish()
    .transform((v) => v ?? ''),
});

export const updateSelfBody = z.object({
  display_name: z.string().trim().max(20).optional(),
  password: password.optional().or(z.literal('')),
  original_password: z.string().max(128).optional(),
});

const settingFields = {
  notify_type: z.enum(['email', 'webhook']),
  quota_warning_threshold: z.coerce.number().int().min(0),
  webhook_url: z
    .string()
    .trim()
    .max(512)
    .refine(
      (v) => v === '' || /^https:\/\/[^\s]+$/.test(v),
      inputRule(ErrorCode.WebhookUrlNotHttps, 'webhook_url must be an https URL'),
    ),
  webhook_secret: z.string().max(256),
  notification_email: z.union([z.literal(''), z.email('notification_email must be an email address')]),
  accept_unset_model_ratio_model: z.boolean(),
  show_ip_in_logs: z.boolean(),
};

/** A user's notification and price settings with their defaults (stored as JSON text in users.setting). */
export const userSetting = z.object({
  notify_type: settingFields.notify_type.default('email'),
  quota_warning_threshold: settingFields.quota_warning_threshold.default(500000),
  webhook_url: settingFields.webhook_url.default(''),
  webhook_secret: settingFields.webhook_secret.default(''),
  notification_email: settingFields.notification_email.default(''),
  accept_unset_model_ratio_model: settingFields.accept_unset_model_ratio_model.default(false),
  show_ip_in_logs: settingFields.show_ip_in_logs.default(false),
  /** What relay calls draw from (PUT /api/subscription/self/preference sets it); kept when other settings are saved. */
  billing_preference: z.enum(BILLING_PREFERENCES).catch(DEFAULT_BILLING_PREFERENCE).default(DEFAULT_BILLING_PREFERENCE),
});
/** PUT /api/user/setting body: any subset; missing keys keep their stored values. */
export const userSettingPatch = z.object(settingFields).partial();
export type UserSetting = z.infer<typeof userSetting>;

export const affTransferBody = z.object({ quota: z.number().int('quota must be an integer') });

export const createUserBody = z.object({
  username: newUsername,
  password,
  display_name: z.string().trim().max(20).optional().default(''),
  role: userRole.optional(),
  remark: z.string().max(255).optional(),
});

export const updateUserBody = z.object({
  id: z.number().int().positive(),
  username: username.optional(),
  display_name: z.string().trim().max(20).optional(),
  password: password.optional().or(z.literal('')),
  group: z.string().trim().min(1).max(64).optional(),
  quota: quotaAmount('quota').optional(),
  email: optionalEmail.optional(),
  remark: z.string().max(255).optional(),
  rpm_limit: perMinute('rpm_limit').optional(),
  tpm_limit: perMinute('tpm_limit').optional(),
  quota_per_day: periodLimitFields.quota_per_day.optional(),
  quota_per_week: periodLimitFields.quota_per_week.optional(),
  quota_per_month: periodLimitFields.quota_per_month.optional(),
  quota_per_5h: periodLimitFields.quota_per_5h.optional(),
  requests_per_day: periodLimitFields.requests_per_day.optional(),
});

/** How POST /api/user/manage with action add_quota changes a balance by `value`. */
export const QuotaChangeModes = ['add', 'subtract', 'override'] as const;
export type QuotaChangeMode = (typeof QuotaChangeModes)[number];

const manageTarget = { id: z.number().int().positive() };

/** A role/status action, or add_quota with a mode and a value (new-api's form). */
export const manageUserBody = z.discriminatedUnion('action', [
  z.object({ ...manageTarget, action: z.enum(UserManageActions) }),
  z.object({
    ...manageTarget,
    action: z.literal('add_quota'),
    mode: z.enum(QuotaChangeModes, { error: 'mode must be add, subtract or override' }),
    value: quotaAmount('value'),
  }),
]);
export type ManageUserBody = z.infer<typeof manageUserBody>;

export const userSearchQuery = z.object({
  keyword: z.string().trim().max(64).optional().default(''),
  group: z.string().trim().max(64).optional().default(''),
});

export const setupBody = z
  .object({
    username: newUsername,
    password,
    confirmPassword: z.string(),
    SelfUseModeEnabled: z.boolean().optional().default(false),
    DemoSiteEnabled: z.boolean().optional().default(false),
  })
  .refine(
    (b) => b.password === b.confirmPassword,
    inputRule(ErrorCode.PasswordsDiffer, 'two passwords do not match', undefined, ['confirmPassword']),
  );
