import { describe, expect, it } from 'vitest';
import { createUserBody, isEmailAddress, registerBody, updateUserBody } from '../src/index.js';

describe('email addresses', () => {
  it('accepts ordinary addresses', () => {
    for (const ok of [
      'a@example.com',
      'first.last+tag@mail.example.co.uk',
      "o'hara@example.ie",
      'x_y-z@sub-domain.example.org',
    ])
      expect(isEmailAddress(ok), ok).toBe(true);
  });

  it('refuses what is not an address', () => {
    const bad = [
      '',
      'plain',
      'a@b',
      '@example.com',
      'a@',
      'a@@example.com',
      'a@b@example.com',
      'sp ace@example.com',
      'a..b@example.com',
      '.a@example.com',
      'a.@example.com',
      'a@-x.com',
      'a@x-.com',
      'a@example.c0m',
      'a@example.c',
      '"quoted"@example.com',
      `${'a'.repeat(60)}@example.com`,
    ];
    for (const v of bad) expect(isEmailAddress(v), v).toBe(false);
  });

  it('registration and administrator edits use it; empty means no email', () => {
    expect(registerBody.safeParse({ username: 'u', password: 'password-1', email: 'nope' }).success).toBe(false);
    expect(registerBody.safeParse({ username: 'u', password: 'password-1', email: '' }).success).toBe(true);
    expect(updateUserBody.safeParse({ id: 1, email: 'nope' }).success).toBe(false);
    expect(updateUserBody.safeParse({ id: 1, email: ' x@example.com ' }).data?.email).toBe('x@example.com');
  });
});

describe('usernames', () => {
  it("new accounts may not use '@' (it marks a login name as an email)", () => {
    const res = registerBody.safeParse({ username: 'me@example.com', password: 'password-1' });
    expect(res.success).toBe(false);
    expect(res.error?.issues[0]?.message).toBe('username must not contain @');
    expect(createUserBody.safeParse({ username: 'a@b', password: 'password-1' }).success).toBe(false);
    expect(registerBody.safeParse({ username: 'plain_name', password: 'password-1' }).success).toBe(true);
  });
});
