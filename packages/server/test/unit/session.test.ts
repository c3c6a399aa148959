import { describe, expect, it } from 'vitest';
import { readCookie, SessionSealer } from '../../src/modules/auth/session.js';

describe('session cookies', () => {
  it('open on any node that shares the secret, and on no other', () => {
    const a = new SessionSealer('shared-secret');
    const b = new SessionSealer('shared-secret');
    const other = new SessionSealer('different-secret');
    const cookie = a.seal(42);
    expect(b.open(cookie)).toBe(42);
    expect(other.open(cookie)).toBeUndefined();
  });

  it('reject tampering, garbage and expiry', () => {
    const s = new SessionSealer('k');
    const cookie = s.seal(7, 60, 1_000_000);
    expect(s.open(cookie, 1_000_000)).toBe(7);
    expect(s.open(cookie, 1_000_000 + 61_000)).toBeUndefined();
    const raw = Buffer.from(cookie, 'base64url');
    raw[raw.length - 1] ^= 1;
    expect(s.open(raw.toString('base64url'), 1_000_000)).toBeUndefined();
    expect(s.open('not-base64-$$$')).toBeUndefined();
    expect(s.open('')).toBeUndefined();
    expect(s.open(undefined)).toBeUndefined();
  });

  it('never reveal the user id in clear text', () => {
    const cookie = new SessionSealer('k').seal(123456);
    expect(Buffer.from(cookie, 'base64url').toString('latin1')).not.toContain('123456');
  });

  it('reads one cookie from a header', () => {
    expect(readCookie('a=1; session=abc%3D; b=2', 'session')).toBe('abc=');
    expect(readCookie('a=1', 'session')).toBeUndefined();
    expect(readCookie(undefined, 'session')).toBeUndefined();
  });
});
