import { LDAP_USERNAME_PLACEHOLDER } from '@tollway/shared';

/** The group search filter's placeholders: the user's DN and the name they signed in with. */
export const LDAP_DN_PLACEHOLDER = '{dn}';

const FILTER_SPECIALS: Readonly<Record<string, string>> = {
  '\\': '\\5c',
  '*': '\\2a',
  '(': '\\28',
  ')': '\\29',
  '\0': '\\00',
};

/**
 * A value as it may stand in an LDAP search filter (RFC 4515, section 3): backslash, asterisk, parentheses and
 * NUL become \XX escapes, so a user name such as `*)(uid=*` matches only an entry of exactly that name.
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (ch) => FILTER_SPECIALS[ch]!);
}

/** LDAPUserFilter with every {username} replaced by the escaped name. */
export function userFilter(template: string, username: string): string {
  return template.trim().replaceAll(LDAP_USERNAME_PLACEHOLDER, escapeFilterValue(username));
}

/** LDAPGroupSearchFilter with {dn} and {username} replaced by their escaped values. */
export function groupFilter(template: string, dn: string, username: string): string {
  return template
    .trim()
    .replaceAll(LDAP_DN_PLACEHOLDER, escapeFilterValue(dn))
    .replaceAll(LDAP_USERNAME_PLACEHOLDER, escapeFilterValue(username));
}

/** `(<attribute>=<escaped value>)`: the entry whose attribute holds exactly the value. */
export function equalityFilter(attribute: string, value: string): string {
  return `(${attribute}=${escapeFilterValue(value)})`;
}

/** Active Directory's userAccountControl flag of a disabled account (ACCOUNTDISABLE). */
const AD_ACCOUNT_DISABLED = 0x2;

/** Whether an AD userAccountControl value (decimal text) marks the account disabled. */
export function adAccountDisabled(value: string | undefined): boolean {
  if (!value || !/^\d+$/.test(value.trim())) return false;
  return (Number(value.trim()) & AD_ACCOUNT_DISABLED) !== 0;
}

/** The first RDN's value of a DN (`cn=Admins,ou=groups,...` → `Admins`), '' when there is none. */
export function firstRdnValue(dn: string): string {
  const m = /^[^=,]+=((?:\\.|[^,\\])*)/.exec(dn.trim());
  return m ? m[1]!.replace(/\\(.)/g, '$1').trim() : '';
}
