import { z } from 'zod';

export { TWO_FACTOR_SETUP_REQUIRED } from '../twofa-constants.js';

/** A TOTP code (6 digits) or a backup code; checked by the server. */
export const twoFactorCode = z.string().trim().min(1, 'please enter the verification code').max(32);

export const twoFactorCodeBody = z.object({ code: twoFactorCode });

/** The second step of a sign-in: the code, and the pending sign-in's token (else the pending cookie is read). */
export const twoFactorLoginBody = z.object({ code: twoFactorCode, flow_token: z.string().max(128).optional() });

/** What a sign-in answers (instead of the user) when the account has two-factor sign-in on. */
export const twoFactorChallenge = z.object({
  require_2fa: z.literal(true),
  flow_token: z.string(),
  expires_at: z.number().int(),
});
export type TwoFactorChallenge = z.infer<typeof twoFactorChallenge>;

export const twoFactorStatus = z.object({
  enabled: z.boolean(),
  /** Too many wrong codes lately: codes are refused until the window ends. */
  locked: z.boolean(),
  backup_codes_remaining: z.number().int(),
  /** The administrator requirement applies to this user and 2FA is not on yet. */
  setup_required: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatus>;

export const twoFactorSetup = z.object({
  secret: z.string(),
  qr_code_data: z.string(),
  backup_codes: z.array(z.string()),
});
export type TwoFactorSetup = z.infer<typeof twoFactorSetup>;
