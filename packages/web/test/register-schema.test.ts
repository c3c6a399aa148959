import { describe, expect, it } from 'vitest';
import { registerSchema } from '../src/features/auth/schemas';

const base = {
  username: 'newuser',
  password: 'password-1',
  password2: 'password-1',
  email: 'new@example.com',
  verification_code: 'ABC123',
};
const messages = (v: Record<string, string>) =>
  registerSchema(true)
    .safeParse(v)
    .error?.issues.map((i) => i.message) ?? [];

describe('register form checks', () => {
  it('refuses an email that is not an email address with the shared rule', () => {
    expect(messages(base)).toEqual([]);
    expect(messages({ ...base, email: 'a@b' })).toEqual(['auth:register.emailInvalid']);
    expect(messages({ ...base, email: 'a..b@example.com' })).toEqual(['auth:register.emailInvalid']);
  });

  it("refuses '@' in a username", () => {
    expect(messages({ ...base, username: 'someone@example.com' })).toEqual(['auth:register.usernameAt']);
  });
});
