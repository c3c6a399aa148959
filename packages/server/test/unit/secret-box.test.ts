import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SecretBox, SecretKeyError, isSealed } from '../../src/lib/secret-box.js';
import { createLogger } from '../../src/logger.js';

const box = new SecretBox('unit-test-crypto-secret');

describe('SecretBox', () => {
  it('seals with a random IV and opens back; plaintext and empty values pass through', () => {
    const a = box.seal('sk-upstream-key');
    const b = box.seal('sk-upstream-key');
    expect(a).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk-upstream-key');
    expect(box.open(a)).toBe('sk-upstream-key');
    expect(box.open(b)).toBe('sk-upstream-key');
    expect(box.seal(a)).toBe(a);
    expect(box.open('written-before')).toBe('written-before');
    expect(box.seal('')).toBe('');
    expect(box.open('{"json":"ünïcode"}')).toBe('{"json":"ünïcode"}');
    expect(box.open(box.seal('{"json":"ünïcode"}'))).toBe('{"json":"ünïcode"}');
  });

  it('refuses a wrong secret, a missing secret and a tampered value with an error naming CRYPTO_SECRET', () => {
    const sealed = box.seal('secret text');
    expect(() => new SecretBox('another-secret').open(sealed)).toThrow(SecretKeyError);
    expect(() => new SecretBox('another-secret').open(sealed)).toThrow(/^CRYPTO_SECRET: .*not the one/);
    expect(() => new SecretBox(undefined).open(sealed)).toThrow(/^CRYPTO_SECRET: .*not set/);
    const raw = Buffer.from(sealed.slice('enc:v1:'.length), 'base64url');
    raw[raw.length - 20]! ^= 1;
    expect(() => box.open(`enc:v1:${raw.toString('base64url')}`)).toThrow(SecretKeyError);
    expect(() => box.open('enc:v1:AAAA')).toThrow(/damaged/);
  });

  it('without a secret stores plaintext; lookup forms are deterministic keyed digests', () => {
    const off = new SecretBox(undefined);
    expect(off.enabled).toBe(false);
    expect(off.seal('plain')).toBe('plain');
    expect(off.lookupForm('token')).toBe('token');
    expect(box.lookupForm('token')).toBe(box.lookupForm('token'));
    expect(box.lookupForm('token')).toMatch(/^hmac:v1:[A-Za-z0-9_-]{43}$/);
    expect(new SecretBox('another-secret').lookupForm('token')).not.toBe(box.lookupForm('token'));
    expect(box.lookupForm(box.lookupForm('token'))).not.toBe(box.lookupForm('token'));
    expect(isSealed(box.seal('x'))).toBe(true);
  });
});

describe('SecretBox deterministic sealing', () => {
  it('gives one text per plaintext, opens back, never passes a sealed text through and refuses another secret', () => {
    const key = 'a'.repeat(12) + 'B'.repeat(36);
    const sealed = box.sealFixed(key);
    expect(sealed).toMatch(/^enc:d1:[A-Za-z0-9_-]+$/);
    expect(sealed.length).toBeLessThanOrEqual(128);
    expect(box.sealFixed(key)).toBe(sealed);
    expect(box.sealFixed(`${key}x`)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(key);
    expect(box.sealFixed(sealed)).not.toBe(sealed);
    expect(new SecretBox(undefined).sealFixed(key)).toBe(key);
    expect(() => new SecretBox('another-secret').open(sealed)).toThrow(/^CRYPTO_SECRET: .*not the one/);
    expect(() => new SecretBox(undefined).open(sealed)).toThrow(/^CRYPTO_SECRET: .*not set/);
  });
});

describe('log redaction', () => {
  it('never writes channel keys, webhook secrets, access tokens or client secrets', () => {
    let out = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
    const log = createLogger('info', sink);
    log.info(
      {
        channel: { id: 1, key: 'sk-channel-plain', keys: ['sk-k1-plain'] },
        setting: { webhook_secret: 'whsec-plain' },
        user: { access_token: 'access-plain', password: 'pass-plain' },
        oauth: { client_secret: 'client-plain' },
        config: { cryptoSecret: 'crypto-plain', sessionSecret: 'session-plain' },
        req: { headers: { authorization: 'Bearer sk-plain', 'x-goog-api-key': 'goog-plain' } },
      },
      'redaction check',
    );
    expect(out).toContain('redaction check');
    for (const s of [
      'sk-channel-plain',
      'sk-k1-plain',
      'whsec-plain',
      'access-plain',
      'pass-plain',
      'client-plain',
      'crypto-plain',
      'session-plain',
      'sk-plain',
      'goog-plain',
    ]) {
      expect(out).not.toContain(s);
    }
  });
});
