import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loggedArguments, MCP_LOGGED_ARGUMENTS_MAX, SECRET_MASK } from '../../src/relay/mcp/arguments.js';

/** A tool call's arguments as a log row keeps them: secrets masked by name and by shape, the text bounded. */
describe('MCP logged arguments', () => {
  it('masks values under secret names at any depth and credential-shaped values under any name', () => {
    const text = loggedArguments({
      query: 'weather in Paris',
      Password: 'p',
      client_secret: 's',
      headers: { Authorization: 'Bearer abc', 'X-Api-Key': 'k', accept: 'json' },
      items: [{ access_token: 't' }, 'Bearer zzz', 'ghp_0123456789abcdef', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig'],
      count: 3,
      flag: null,
    });
    expect(JSON.parse(text)).toEqual({
      query: 'weather in Paris',
      Password: SECRET_MASK,
      client_secret: SECRET_MASK,
      headers: { Authorization: SECRET_MASK, 'X-Api-Key': SECRET_MASK, accept: 'json' },
      items: [{ access_token: SECRET_MASK }, SECRET_MASK, SECRET_MASK, SECRET_MASK],
      count: 3,
      flag: null,
    });
  });

  it('answers "" for no arguments and cuts long ones at the limit', () => {
    expect(loggedArguments(undefined)).toBe('');
    const long = loggedArguments({ text: 'x'.repeat(10_000) });
    expect(long.length).toBe(MCP_LOGGED_ARGUMENTS_MAX + 1);
    expect(long.endsWith('…')).toBe(true);
  });

  it('never lets a value under a secret name through, whatever the arguments (property)', () => {
    const secretKey = fc.constantFrom('password', 'api_key', 'token', 'Authorization', 'secret', 'cookie');
    const plain = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((k) => !/pass|secret|token|key|auth|cred|cookie|session|sign|bearer/i.test(k));
    const marker = 'SECRET-VALUE-7f3a';
    const tree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.string({ maxLength: 8 }),
        fc.integer(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(plain, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(tree, secretKey, plain, (t, key, at) => {
        const args = { [at]: t, nested: { [key]: marker }, [key]: marker };
        expect(loggedArguments(args)).not.toContain(marker);
      }),
    );
  });
});
