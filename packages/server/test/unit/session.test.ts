import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readCookie, SessionSealer, sessionKey } from '../../src/modules/auth/session.js';

const SID = 'a-random-session-id-0123456789abcdef';

/** A cookie sealed the way releases before revocable sessions did: {uid, exp}, no session id. */
function legacyCookie(secret: string, uid: number): string {
  const key = crypto.createHash('sha256').update(`tollway-session:${secret}`).digest();
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([
    cipher.update(JSON.stringify({ uid, exp: Math.floor(Date.now() / 1000) + 3600 }), 'utf8'),
    cipher.final(),
  ]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

describe('session cookies', () => {
  it('open on any node that shares the secret, and on no other', () => {
    const a = new SessionSealer('shared-secret');
    const b = new SessionSealer('shared-secret');
    const other = new SessionSealer('different-secret');
    const cookie = a.seal(42, SID);
    expect(b.open(cookie)).toEqual({ uid: 42, sid: SID });
    expect(other.open(cookie)).toBeUndefined();
  });

  it('reject tampering, garbage and expiry', () => {
    const s = new SessionSealer('k');
    const cookie = s.seal(7, SID, 60, 1_000_000);
    expect(s.open(cookie, 1_000_000)).toEqual({ uid: 7, sid: SID });
    expect(s.open(cookie, 1_000_000 + 61_000)).toBeUndefined();
    const raw = Buffer.from(cookie, 'base64url');
    raw[raw.length - 1] ^= 1;
    expect(s.open(raw.toString('base64url'), 1_000_000)).toBeUndefined();
    expect(s.open('not-base64-$$$')).toBeUndefined();
    expect(s.open('')).toBeUndefined();
    expect(s.open(undefined)).toBeUndefined();
  });

  it('refuse a cookie without a session id (sealed before sessions had rows)', () => {
    expect(new SessionSealer('k').open(legacyCookie('k', 5))).toBeUndefined();
  });

  it('key the session row by a hash, never by the id itself', () => {
    expect(sessionKey(SID)).toMatch(/^[0-9a-f]{64}$/);
    expect(sessionKey(SID)).not.toContain(SID);
  });

  it('never reveal the user id in clear text', () => {
    const cookie = new SessionSealer('k').seal(123456, SID);
    expect(Buffer.from(cookie, 'base64url').toString('latin1')).not.toContain('123456');
  });

  it('reads one cookie from a header', () => {
    expect(readCookie('a=1; session=abc%3D; b=2', 'session')).toBe('abc=');
    expect(readCookie('a=1', 'session')).toBeUndefined();
    expect(readCookie(undefined, 'session')).toBeUndefined();
  });
});
