import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import {
  backupCodeCheck,
  backupCodeMatches,
  hashBackupCode,
  newBackupCodes,
  normalizeBackupCode,
} from '../../src/modules/twofa/backup-codes.js';
import { normalizeImportedCode } from '../../src/modules/twofa/imported-codes.js';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpCode } from '../../src/modules/twofa/totp.js';

/** RFC 6238 appendix B: seeds per hash, times (seconds) and the 8-digit codes. */
const SEEDS = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
};
const VECTORS: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)('at T=%i gives the appendix B codes for SHA-1, SHA-256 and SHA-512', (t, sha1, sha256, sha512) => {
    const step = Math.floor(t / 30);
    expect(hotp(SEEDS.sha1, step, 8, 'sha1')).toBe(sha1);
    expect(hotp(SEEDS.sha256, step, 8, 'sha256')).toBe(sha256);
    expect(hotp(SEEDS.sha512, step, 8, 'sha512')).toBe(sha512);
  });

  it('the 6-digit SHA-1 code an authenticator shows is the low six digits, from the base32 secret', () => {
    const secret = base32Encode(SEEDS.sha1);
    expect(secret).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    for (const [t, sha1] of VECTORS) expect(totpCode(secret, t * 1000)).toBe(sha1.slice(2));
  });

  it('accepts the current step and one step either side, nothing further, and only six digits', () => {
    const secret = base32Encode(SEEDS.sha1);
    const now = 1111111111 * 1000;
    const step = Math.floor(1111111111 / 30);
    expect(matchTotp(secret, totpCode(secret, now), now)).toBe(step);
    expect(matchTotp(secret, totpCode(secret, now - 30_000), now)).toBe(step - 1);
    expect(matchTotp(secret, totpCode(secret, now + 30_000), now)).toBe(step + 1);
    expect(matchTotp(secret, totpCode(secret, now - 60_000), now)).toBeUndefined();
    expect(matchTotp(secret, totpCode(secret, now + 60_000), now)).toBeUndefined();
    expect(matchTotp(secret, '14050471', now)).toBeUndefined();
    expect(matchTotp(secret, 'abcdef', now)).toBeUndefined();
  });

  it('base32 round-trips any bytes and refuses foreign characters; the otpauth address carries the parameters', () => {
    for (const n of [1, 5, 10, 19, 20, 33]) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255));
      expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
    }
    expect(base32Decode('abc1')).toBeUndefined();
    const text = otpauthUri('My Gate', 'al ice', 'JBSWY3DPEHPK3PXP');
    expect(text.startsWith('otpauth://totp/My%20Gate:al%20ice?')).toBe(true);
    const uri = new URL(text);
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: 'JBSWY3DPEHPK3PXP',
      issuer: 'My Gate',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});

describe('backup codes', () => {
  it('are ten distinct XXXXX-XXXXX codes, hashed with a salt, matched case- and dash-insensitively', async () => {
    const codes = newBackupCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    const hash = await hashBackupCode(codes[0]!);
    expect(hash).not.toContain(codes[0]!.replace('-', ''));
    expect(await hashBackupCode(codes[0]!)).not.toBe(hash);
    expect(await backupCodeMatches(normalizeBackupCode(codes[0]!.toLowerCase().replace('-', ' '))!, hash)).toBe(true);
    expect(await backupCodeMatches(normalizeBackupCode(codes[1]!)!, hash)).toBe(false);
    expect(normalizeBackupCode('123456')).toBeUndefined();
  });

  it("also checks codes imported from new-api: Go's bcrypt of XXXX-XXXX; each scheme only against its own hashes", async () => {
    expect(normalizeImportedCode('ab12 cd34')).toBe('AB12-CD34');
    expect(normalizeImportedCode('AB12-CD3')).toBeUndefined();
    expect(normalizeImportedCode('AB12-CD3!')).toBeUndefined();
    // new-api hashed the dashed upper-case form (common.HashBackupCode); Go writes $2a$.
    const imported = bcrypt.hashSync('AB12-CD34', 4).replace(/^\$2b\$/, '$2a$');
    const own = await hashBackupCode('ABCDE-FGHJK');
    const check = backupCodeCheck('ab12cd34')!;
    expect(await check(imported)).toBe(true);
    expect(await check(own)).toBe(false);
    expect(await backupCodeCheck('AB12-CD35')!(imported)).toBe(false);
    expect(await backupCodeCheck('abcde-fghjk')!(own)).toBe(true);
    expect(await backupCodeCheck('abcde-fghjk')!(imported)).toBe(false);
    expect(backupCodeCheck('123456')).toBeUndefined();
  });
});
