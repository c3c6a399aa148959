import { describe, expect, it } from 'vitest';
import { ErrorCode, ldapUrlProblem, ldapUserFilterProblem } from '@tollway/shared';
import {
  adAccountDisabled,
  equalityFilter,
  escapeFilterValue,
  firstRdnValue,
  groupFilter,
  userFilter,
} from '../../src/modules/ldap/filter.js';

describe('LDAP filter values (RFC 4515)', () => {
  it('escapes backslash, asterisk, parentheses and NUL, and nothing else', () => {
    expect(escapeFilterValue('*)(uid=*')).toBe('\\2a\\29\\28uid=\\2a');
    expect(escapeFilterValue('a\\b\0c')).toBe('a\\5cb\\00c');
    expect(escapeFilterValue('Zoë O’Brien-Smith')).toBe('Zoë O’Brien-Smith');
  });

  it('fills {username} and {dn} with escaped values', () => {
    expect(userFilter('(&(objectClass=user)(sAMAccountName={username}))', 'a*')).toBe(
      '(&(objectClass=user)(sAMAccountName=a\\2a))',
    );
    expect(userFilter('(|(uid={username})(mail={username}))', 'x)(')).toBe('(|(uid=x\\29\\28)(mail=x\\29\\28))');
    expect(groupFilter('(|(member={dn})(memberUid={username}))', 'cn=a\\,b,dc=x', 'b*')).toBe(
      '(|(member=cn=a\\5c,b,dc=x)(memberUid=b\\2a))',
    );
    expect(equalityFilter('uid', '*')).toBe('(uid=\\2a)');
  });

  it("reads AD's ACCOUNTDISABLE flag (bit 2) of userAccountControl", () => {
    expect(adAccountDisabled('514')).toBe(true); // NORMAL_ACCOUNT | ACCOUNTDISABLE
    expect(adAccountDisabled('66050')).toBe(true);
    expect(adAccountDisabled('512')).toBe(false);
    expect(adAccountDisabled('66048')).toBe(false);
    expect(adAccountDisabled('')).toBe(false);
    expect(adAccountDisabled('x2')).toBe(false);
  });

  it("takes a group DN's first RDN value (the cn the mapping may name)", () => {
    expect(firstRdnValue('cn=GPU Users,ou=groups,dc=example,dc=com')).toBe('GPU Users');
    expect(firstRdnValue('CN=Smith\\, John,OU=x')).toBe('Smith, John');
    expect(firstRdnValue('')).toBe('');
  });
});

describe('LDAP option checks', () => {
  it('accepts ldap:// and ldaps:// URLs with a host, or nothing', () => {
    expect(ldapUrlProblem('')).toBeUndefined();
    expect(ldapUrlProblem('ldaps://dc1.example.com:636')).toBeUndefined();
    expect(ldapUrlProblem('ldap://10.0.0.5')).toBeUndefined();
    for (const bad of ['http://dc1', 'dc1.example.com', 'ldap://', 'ldaps:///x'])
      expect(ldapUrlProblem(bad)?.code, bad).toBe(ErrorCode.LdapUrlInvalid);
  });

  it('wants a parenthesised, balanced filter holding {username}', () => {
    expect(ldapUserFilterProblem('(uid={username})')).toBeUndefined();
    expect(ldapUserFilterProblem('(&(objectClass=user)(sAMAccountName={username}))')).toBeUndefined();
    for (const bad of ['uid={username}', '(uid=alice)', '((uid={username})', '(uid={username}))(', ''])
      expect(ldapUserFilterProblem(bad)?.code, bad).toBe(ErrorCode.LdapFilterInvalid);
  });
});
