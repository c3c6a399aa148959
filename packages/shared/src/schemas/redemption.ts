import { z } from 'zod';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';
import { pageQuery } from './common.js';

/** Redemption status: 1 unused, 2 disabled, 3 used. */
export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;

/** Limits of redemption codes, enforced by the server and shown by the console. */
export const REDEMPTION_NAME_MAX = 20;
export const REDEMPTION_MAX_BATCH = 100;
export const REDEMPTION_KEY_LENGTH = 32;
/** What a custom key may contain: letters, digits, "-" and "_". */
export const REDEMPTION_KEY_PATTERN = /^[A-Za-z0-9_-]*$/;
/** Largest quota one code can carry (2^53 / 1000: sums of many codes stay exact). */
export const REDEMPTION_MAX_QUOTA = 9_000_000_000_000;

/** A code as the admin APIs answer it; times are epoch seconds, 0 meaning none; used_user_id 0: nobody yet; max_uses -1 unlimited. */
export const redemptionPublic = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  key: z.string(),
  status: z.number().int(),
  name: z.string(),
  quota: z.number().int(),
  created_time: z.number().int(),
  redeemed_time: z.number().int(),
  used_user_id: z.number().int(),
  is_gift: z.boolean(),
  max_uses: z.number().int(),
  used_count: z.number().int(),
  valid_from: z.number().int(),
  valid_until: z.number().int(),
  /** new-api's name for valid_until (the same value). */
  expired_time: z.number().int(),
});
export type RedemptionPublic = z.infer<typeof redemptionPublic>;

/** The editable fields of POST /api/redemption/ (create, with count and key besides) and PUT /api/redemption/ (edit). */
export type RedemptionInput = Pick<
  RedemptionPublic,
  'name' | 'quota' | 'is_gift' | 'max_uses' | 'valid_from' | 'valid_until'
>;

// Request bodies and queries of the redemption API.

/** Latest accepted time (9999-12-31 23:59:59 UTC). */
const MAX_EPOCH = 253402300799;

const int = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number` })
    .min(min, `${field} must be at least ${min}`)
    .max(max, `${field} must be at most ${max}`)
    // A refinement rather than .int(): zod reports .int() failures as a type error without the input.
    .refine(Number.isInteger, inputRule(ErrorCode.InputNotInteger, `${field} must be an integer`));

/** An epoch-seconds bound; blank (null) and 0 mean none. */
const epoch = (field: string) => z.union([int(field, 0, MAX_EPOCH), z.null()]).transform((v) => v ?? 0);

const MAX_USES_RULE = 'max_uses must be -1 (unlimited) or a whole number from 1 to 1000000000';

const fields = {
  name: z
    .string({ error: 'name must be a string' })
    .trim()
    .min(1, 'name is required (1-20 characters)')
    .max(REDEMPTION_NAME_MAX, `name must be 1-${REDEMPTION_NAME_MAX} characters`),
  quota: int('quota', 1, REDEMPTION_MAX_QUOTA),
  is_gift: z
    .union([z.boolean(), z.literal(0), z.literal(1)], { error: 'is_gift must be true or false' })
    .transform((v) => v === true || v === 1),
  /** -1 (or blank) unlimited, else at least 1; read only for gift codes. */
  max_uses: z
    .number({ error: MAX_USES_RULE })
    .refine(
      (v) => v === -1 || (Number.isInteger(v) && v >= 1 && v <= 1_000_000_000),
      inputRule(ErrorCode.RedemptionMaxUsesInvalid, MAX_USES_RULE),
    )
    .nullable()
    .transform((v) => v ?? -1),
  valid_from: epoch('valid_from'),
  valid_until: epoch('valid_until'),
  /** new-api's name for valid_until, accepted in its place. */
  expired_time: epoch('expired_time'),
};

/** Either expiry name may be given; both given must agree. */
const sameExpiry = (b: { valid_until?: number; expired_time?: number }) =>
  b.valid_until === undefined || b.expired_time === undefined || b.valid_until === b.expired_time;
const EXPIRY_CONFLICT = inputRule(
  ErrorCode.RedemptionExpiryConflict,
  'expired_time and valid_until name the same expiry and must agree',
  undefined,
  ['expired_time'],
);

/** POST /api/redemption/: `count` codes (1-100); a custom key makes exactly one. */
export const createRedemptionBody = z
  .object({
    name: fields.name,
    quota: fields.quota,
    count: int('count', 1, REDEMPTION_MAX_BATCH).default(1),
    key: z
      .string({ error: 'key must be a string' })
      .trim()
      .max(REDEMPTION_KEY_LENGTH, `key must be at most ${REDEMPTION_KEY_LENGTH} characters`)
      .regex(REDEMPTION_KEY_PATTERN, 'key may contain only letters, digits, "-" and "_"')
      .nullish()
      .transform((v) => v ?? ''),
    is_gift: fields.is_gift.default(false),
    max_uses: fields.max_uses.default(-1),
    valid_from: fields.valid_from.default(0),
    valid_until: fields.valid_until.optional(),
    expired_time: fields.expired_time.optional(),
  })
  .refine(sameExpiry, EXPIRY_CONFLICT)
  .transform(({ expired_time, ...b }) => ({ ...b, valid_until: b.valid_until ?? expired_time ?? 0 }));
export type CreateRedemptionBody = z.infer<typeof createRedemptionBody>;

const id = int('id', 1, Number.MAX_SAFE_INTEGER);

/** PUT /api/redemption/: id plus the fields to change; with ?status_only=true only id and status. */
export const updateRedemptionBody = z
  .object({
    id,
    status: int('status', 1, 3).optional(),
    name: fields.name.optional(),
    quota: fields.quota.optional(),
    is_gift: fields.is_gift.optional(),
    max_uses: fields.max_uses.optional(),
    valid_from: fields.valid_from.optional(),
    valid_until: fields.valid_until.optional(),
    expired_time: fields.expired_time.optional(),
  })
  .refine(sameExpiry, EXPIRY_CONFLICT)
  .transform(({ expired_time, ...b }) => ({ ...b, valid_until: b.valid_until ?? expired_time }));
export type UpdateRedemptionBody = z.infer<typeof updateRedemptionBody>;

export const updateRedemptionQuery = z.object({
  status_only: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .optional(),
});

export const redemptionSearchQuery = pageQuery.extend({ keyword: z.string().trim().max(64).optional() });

export const redemptionNameQuery = z.object({
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name is required')
    .max(REDEMPTION_NAME_MAX, `name must be 1-${REDEMPTION_NAME_MAX} characters`),
});

export const redemptionBatchDisableBody = z.object({
  ids: z
    .array(id, { error: 'ids must be a list of redemption code ids' })
    .min(1, 'please select at least one redemption code')
    .max(1000, 'at most 1000 ids at once'),
});

/** POST /api/user/topup: a blank key is refused by the service ("please enter a redemption code"). */
export const redeemBody = z.object({
  key: z.string({ error: 'key must be a string' }).max(64, 'invalid redemption code').nullish(),
});
