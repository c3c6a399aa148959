import { ErrorCode } from './error-codes.js';
import type { OptionCheckFailure } from './option-def.js';

/** The placeholder of LDAPUserFilter that the sign-in replaces with the escaped user name. */
export const LDAP_USERNAME_PLACEHOLDER = '{username}';

/** LDAPServerURL: empty (not configured) or one ldap:// or ldaps:// URL with a host. */
export function ldapUrlProblem(text: string): OptionCheckFailure | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') || !url.hostname) {
    return {
      message: 'must be an ldap:// or ldaps:// URL with a host, e.g. ldaps://dc1.example.com:636',
      code: ErrorCode.LdapUrlInvalid,
    };
  }
  return undefined;
}

/** LDAPUserFilter: a parenthesised filter holding {username} once at least, with balanced parentheses. */
export function ldapUserFilterProblem(text: string): OptionCheckFailure | undefined {
  const value = text.trim();
  let depth = 0;
  let balanced = value.startsWith('(') && value.endsWith(')');
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0) balanced = false;
  }
  if (!balanced || depth !== 0 || !value.includes(LDAP_USERNAME_PLACEHOLDER)) {
    return {
      message: 'must be an LDAP filter in parentheses that contains {username}, e.g. (uid={username})',
      code: ErrorCode.LdapFilterInvalid,
    };
  }
  return undefined;
}
