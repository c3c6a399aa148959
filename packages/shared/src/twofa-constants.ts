/**
 * The message of the 403 an administrator without two-factor sign-in gets while TwoFactorRequiredForAdmins is
 * on; the console recognises it and opens the setup. (Kept out of the twofa schemas so the console's entry can
 * read it without zod.)
 */
export const TWO_FACTOR_SETUP_REQUIRED =
  'two-factor authentication is required for administrators: set it up in personal settings first';
