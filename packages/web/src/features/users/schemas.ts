import type { TFunction } from 'i18next';
import { z } from 'zod';
import { periodLimitFormFields } from '../../lib/period-limits';

/** Limits mirrored from packages/shared schemas/user.ts, with messages in the users namespace. */
export const USERNAME_MAX = 20;
export const DISPLAY_NAME_MAX = 20;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 72;
export const REMARK_MAX = 255;

const username = (t: TFunction) =>
  z
    .string()
    .trim()
    .min(1, t('validation.usernameRequired'))
    .max(USERNAME_MAX, t('validation.tooLong', { max: USERNAME_MAX }));

const displayName = (t: TFunction) =>
  z
    .string()
    .trim()
    .max(DISPLAY_NAME_MAX, t('validation.tooLong', { max: DISPLAY_NAME_MAX }));
const remark = (t: TFunction) => z.string().max(REMARK_MAX, t('validation.tooLong', { max: REMARK_MAX }));

/** Requests or tokens per minute: a whole number, 0 meaning no limit. */
const perMinute = (t: TFunction) =>
  z.number(t('validation.perMinute')).int(t('validation.perMinute')).min(0, t('validation.perMinute'));

/** Add user: username and password non-empty; password at least 8. */
export const createUserSchema = (t: TFunction) =>
  z.object({
    username: username(t),
    display_name: displayName(t),
    password: z
      .string()
      .min(1, t('validation.passwordRequired'))
      .min(PASSWORD_MIN, t('validation.passwordMin', { min: PASSWORD_MIN }))
      .max(PASSWORD_MAX, t('validation.tooLong', { max: PASSWORD_MAX })),
    remark: remark(t),
  });
export type CreateUserForm = z.infer<ReturnType<typeof createUserSchema>>;

/** Edit user: blank password leaves it unchanged; quota is an integer. */
export const editUserSchema = (t: TFunction) =>
  z.object({
    username: username(t),
    display_name: displayName(t),
    password: z.union([
      z.literal(''),
      z
        .string()
        .min(PASSWORD_MIN, t('validation.passwordMin', { min: PASSWORD_MIN }))
        .max(PASSWORD_MAX, t('validation.tooLong', { max: PASSWORD_MAX })),
    ]),
    group: z.string(),
    quota: z.number(t('validation.quotaInteger')).int(t('validation.quotaInteger')).min(0, t('quota.negative')),
    remark: remark(t),
    rpm_limit: perMinute(t),
    tpm_limit: perMinute(t),
    ...periodLimitFormFields(t('validation.perMinute')),
  });
export type EditUserForm = z.infer<ReturnType<typeof editUserSchema>>;
