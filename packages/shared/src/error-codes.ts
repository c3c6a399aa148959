/**
 * Stable codes of the refusals users see most, sent beside the English `message` on `{success:false}` so the
 * console can show its own text in the viewer's language (the message stays the fallback).
 */
export const ErrorCode = {
  // Sign-in, registration, password.
  NotLoggedIn: 'not_logged_in',
  NoPermission: 'no_permission',
  LoginFailed: 'login_failed',
  UserBanned: 'user_banned',
  PasswordLoginDisabled: 'password_login_disabled',
  RegisterDisabled: 'register_disabled',
  PasswordRegisterDisabled: 'password_register_disabled',
  PasswordsDiffer: 'passwords_differ',
  EmailVerificationRequired: 'email_verification_required',
  UsernameTaken: 'username_taken',
  EmailTaken: 'email_taken',
  EmailAmbiguous: 'email_ambiguous',
  OriginalPasswordWrong: 'original_password_wrong',
  PasswordWrong: 'password_wrong',
  SignInExpired: 'sign_in_expired',
  BotCheckRequired: 'bot_check_required',
  BotCheckFailed: 'bot_check_failed',
  // E-mail and its codes.
  EmailRequired: 'email_required',
  EmailInvalid: 'email_invalid',
  EmailDomainNotAllowed: 'email_domain_not_allowed',
  EmailAliasNotAllowed: 'email_alias_not_allowed',
  VerificationCodeWrong: 'verification_code_wrong',
  VerificationCodeRequired: 'verification_code_required',
  ResetLinkInvalid: 'reset_link_invalid',
  SmtpNotConfigured: 'smtp_not_configured',
  MailSendFailed: 'mail_send_failed',
  // Two-factor sign-in.
  TwoFactorCodeWrong: 'twofa_code_wrong',
  TwoFactorCodeReplayed: 'twofa_code_replayed',
  TwoFactorTooManyTries: 'twofa_too_many_tries',
  TwoFactorAlreadyEnabled: 'twofa_already_enabled',
  TwoFactorNotEnabled: 'twofa_not_enabled',
  TwoFactorSetupFirst: 'twofa_setup_first',
  // Redemption codes, wallet, quota.
  RedemptionEmpty: 'redemption_empty',
  RedemptionInvalid: 'redemption_invalid',
  RedemptionNotFound: 'redemption_not_found',
  RedemptionUsed: 'redemption_used',
  RedemptionDisabled: 'redemption_disabled',
  RedemptionExpired: 'redemption_expired',
  RedemptionNotYetValid: 'redemption_not_yet_valid',
  RedemptionUsedUp: 'redemption_used_up',
  RedemptionUsedByYou: 'redemption_used_by_you',
  RedemptionEditUnused: 'redemption_edit_unused',
  AffTransferMinimum: 'aff_transfer_minimum',
  AffQuotaInsufficient: 'aff_quota_insufficient',
  QuotaNegative: 'quota_negative',
  BalanceTooLow: 'balance_too_low',
  AmountNotPositive: 'amount_not_positive',
  // Check-in.
  CheckInDisabled: 'checkin_disabled',
  CheckInAlreadyToday: 'checkin_already_today',
  // Tokens.
  TokenNotFound: 'token_not_found',
  TokenLimitReached: 'token_limit_reached',
  TokenGroupUnavailable: 'token_group_unavailable',
  TokenExpiredInPast: 'token_expired_in_past',
  // OAuth sign-in and bindings.
  OAuthDisabled: 'oauth_disabled',
  OAuthStateInvalid: 'oauth_state_invalid',
  OAuthNotBound: 'oauth_not_bound',
  OAuthOnlySignIn: 'oauth_only_sign_in',
  OAuthRegisterDisabled: 'oauth_register_disabled',
  // Users managed by an administrator.
  UserNotFound: 'user_not_found',
  UserLevelRefused: 'user_level_refused',
  RootProtected: 'root_protected',
  SelfManageRefused: 'self_manage_refused',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Values a refusal's text needs (the minimum amount, a time): sent as `params` beside the code. */
export type ErrorParams = Record<string, string | number>;
