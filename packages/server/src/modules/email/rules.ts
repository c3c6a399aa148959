import { EMAIL_INVALID_MESSAGE, isEmailAddress, ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { OptionsService } from '../../core/options/service.js';

/** The address trimmed, when it is a well-formed email of at most 64 characters; a 400 naming the problem otherwise. */
export function validEmail(raw: string): string {
  const email = raw.trim();
  if (!email) throw coded(ErrorCode.EmailRequired, 'email is required');
  if (!isEmailAddress(email)) throw coded(ErrorCode.EmailInvalid, EMAIL_INVALID_MESSAGE);
  return email;
}

/** EmailDomainRestrictionEnabled with EmailDomainWhitelist (comma separated), and EmailAliasRestrictionEnabled (no `+`). */
export function checkEmailRestrictions(email: string, options: OptionsService): void {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1).toLowerCase();
  if (options.bool('EmailDomainRestrictionEnabled')) {
    const allowed = options
      .get('EmailDomainWhitelist')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean);
    if (!allowed.includes(domain)) {
      throw coded(
        ErrorCode.EmailDomainNotAllowed,
        `the administrator allows only email addresses of these domains: ${allowed.join(', ') || '(none)'}`,
        {
          domains: allowed.join(', '),
        },
      );
    }
  }
  if (options.bool('EmailAliasRestrictionEnabled') && local.includes('+')) {
    throw coded(
      ErrorCode.EmailAliasNotAllowed,
      'the administrator does not allow email aliases: remove the "+" part of the address',
    );
  }
}
