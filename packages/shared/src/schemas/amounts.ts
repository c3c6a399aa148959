import { z } from 'zod';
import { Role } from '../enums.js';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';
import { QUOTA_MAX } from '../quota.js';

/**
 * A quota amount (a balance, a token's limit, a code's value): a whole number from 0 to QUOTA_MAX. Used by
 * the management API's bodies and by the importer, so both refuse the same values.
 */
export const quotaAmount = (field: string) =>
  z
    .number({ error: `${field} must be a number of quota units` })
    // Refinements rather than .int()/.min()/.max(): each failure carries its code, and 1e300 or 1.5 is named.
    .refine(Number.isInteger, inputRule(ErrorCode.InputNotInteger, `${field} must be a whole number of quota units`))
    .refine((v) => v >= 0, inputRule(ErrorCode.QuotaNegative, `${field} must not be negative`))
    .refine(
      (v) => v <= QUOTA_MAX,
      inputRule(ErrorCode.InputTooLarge, `${field} must be at most ${QUOTA_MAX}`, { max: QUOTA_MAX }),
    );

/** The roles a user row may hold: common user, administrator, root (there is one root, made by setup). */
export const USER_ROLES = [Role.Common, Role.Admin, Role.Root] as const;
export const userRole = z.union([z.literal(Role.Common), z.literal(Role.Admin), z.literal(Role.Root)], {
  error: `role must be one of ${USER_ROLES.join(', ')}`,
});
