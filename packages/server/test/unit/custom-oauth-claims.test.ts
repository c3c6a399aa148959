import { describe, expect, it } from 'vitest';
import {
  denialMessage,
  evaluatePolicy,
  parseAccessPolicy,
  textAt,
  valueAt,
} from '../../src/modules/custom-oauth/claims.js';
import { isProxyEntry, proxyEntries } from '../../src/modules/custom-oauth/provider-rules.js';

const user = {
  sub: 'u-1',
  id: 42,
  email_verified: true,
  data: { user: { id: 7, 'a.b': 'dotted' } },
  groups: ['staff', 'engineering'],
  level: 3,
};

describe('custom provider claims', () => {
  it('reads values by dotted JSON path', () => {
    expect(textAt(user, 'sub')).toBe('u-1');
    expect(textAt(user, 'id')).toBe('42');
    expect(textAt(user, 'data.user.id')).toBe('7');
    expect(textAt(user, 'data.user.a\\.b')).toBe('dotted');
    expect(textAt(user, 'groups.1')).toBe('engineering');
    expect(valueAt(user, 'groups')).toEqual(['staff', 'engineering']);
    expect(valueAt(user, 'missing.deeper')).toBeUndefined();
    expect(valueAt(user, 'groups.x')).toBeUndefined();
    expect(valueAt(user, '__proto__')).toBeUndefined();
    expect(textAt(user, 'data')).toBe('');
  });

  it("evaluates new-api's access policy with and/or groups and names the failed condition", () => {
    const policy = parseAccessPolicy(
      JSON.stringify({
        logic: 'and',
        conditions: [
          { field: 'email_verified', op: 'eq', value: true },
          { field: 'groups', op: 'contains', value: 'staff' },
        ],
        groups: [
          {
            logic: 'or',
            conditions: [
              { field: 'level', op: 'gte', value: 5 },
              { field: 'sub', op: 'in', value: ['u-1', 'u-2'] },
            ],
          },
        ],
      }),
    );
    expect(evaluatePolicy(user, policy)).toBeUndefined();
    const failure = evaluatePolicy({ ...user, groups: ['sales'] }, policy);
    expect(failure).toMatchObject({ field: 'groups', op: 'contains', expected: 'staff' });
    expect(evaluatePolicy({ ...user, sub: 'u-9' }, policy)).toMatchObject({ field: 'level', op: 'gte' });
    expect(evaluatePolicy(user, parseAccessPolicy('{"conditions":[{"field":"banned","op":"not_exists"}]}'))).toBe(
      undefined,
    );
    expect(
      denialMessage('{{provider}}: {{field}} must {{op}} {{required}}, is {{current}} ({{claim.sub}})', 'Acme', user, {
        field: 'level',
        op: 'gte',
        expected: 5,
        current: 3,
      }),
    ).toBe('Acme: level must gte 5, is 3 (u-1)');
  });

  it('refuses a policy that is not valid', () => {
    for (const bad of [
      'nope',
      '[]',
      '{}',
      '{"logic":"xor","conditions":[{"field":"a","op":"eq","value":1}]}',
      '{"conditions":[{"field":"a","op":"like","value":1}]}',
      '{"conditions":[{"field":"a","op":"in","value":1}]}',
      '{"conditions":[{"op":"eq","value":1}]}',
    ])
      expect(() => parseAccessPolicy(bad), bad).toThrow();
  });

  it('reads trusted proxy lists', () => {
    expect(proxyEntries('["10.0.0.0/8", "127.0.0.1"]')).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(proxyEntries('10.0.0.0/8, 192.168.1.1 ::1')).toEqual(['10.0.0.0/8', '192.168.1.1', '::1']);
    expect(['10.0.0.0/8', '::1', 'fc00::/7', '127.0.0.1'].every(isProxyEntry)).toBe(true);
    expect(['10.0.0.0/33', 'example.com', '1.2.3.4/8/1', '::1/129'].some(isProxyEntry)).toBe(false);
  });
});
