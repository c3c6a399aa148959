import crypto from 'node:crypto';

/** Time-based one-time passwords as authenticator apps use them: HMAC-SHA-1, 6 digits, 30-second steps. */
export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
/** Codes of the step before and after the current one are accepted too (clock drift). */
export const TOTP_DRIFT_STEPS = 1;
/** 160-bit secrets, the size of an HMAC-SHA-1 key. */
export const TOTP_SECRET_BYTES = 20;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 ignoring case, spaces and padding; undefined for any other character. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = BASE32.indexOf(ch);
    if (index < 0) return undefined;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export const newTotpSecret = (): string => base32Encode(crypto.randomBytes(TOTP_SECRET_BYTES));

/** The step a moment falls in. */
export const totpStep = (nowMs: number): number => Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS);

/** HOTP value of `counter` (dynamic truncation), `digits` long, with the given HMAC hash. */
export function hotp(key: Buffer, counter: number, digits = TOTP_DIGITS, algorithm = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = crypto.createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The code shown by an authenticator for the base32 `secret` at `nowMs`. */
export function totpCode(secret: string, nowMs = Date.now()): string {
  const key = base32Decode(secret);
  if (!key) throw new Error('invalid TOTP secret');
  return hotp(key, totpStep(nowMs));
}

/**
 * The step whose code `code` is (the current one first, then the neighbours within the drift), or undefined.
 * Every candidate is compared in constant time.
 */
export function matchTotp(secret: string, code: string, nowMs = Date.now()): number | undefined {
  const key = base32Decode(secret);
  if (!key || !/^\d{6}$/.test(code)) return undefined;
  const current = totpStep(nowMs);
  let matched: number | undefined;
  for (const step of [current, current - TOTP_DRIFT_STEPS, current + TOTP_DRIFT_STEPS]) {
    const same = crypto.timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code));
    if (same && matched === undefined) matched = step;
  }
  return matched;
}

/** The otpauth:// address authenticator apps read from the QR code. */
export function otpauthUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret,
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
