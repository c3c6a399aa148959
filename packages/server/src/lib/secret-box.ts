import crypto from 'node:crypto';
import { ConfigError } from '../config.js';

/** Prefix of a value sealed with the current format; anything without it is plaintext written before. */
export const SEALED_PREFIX = 'enc:v1:';
/** Prefix of a deterministically sealed value (same plaintext, same text: found by an equality query). */
export const FIXED_PREFIX = 'enc:d1:';
/** Prefix of a lookup digest (a value that is only ever compared, never shown again). */
export const DIGEST_PREFIX = 'hmac:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const HKDF_SALT = 'tollway-secret-box';
const SEAL_INFO = 'tollway secrets at rest v1';
const DIGEST_INFO = 'tollway lookup digest v1';
const FIXED_INFO = 'tollway deterministic seal v1';
const FIXED_IV_INFO = 'tollway deterministic iv v1';
const SIV_BYTES = 16;

const NOT_SET =
  'the database holds encrypted secrets but CRYPTO_SECRET is not set; start with the CRYPTO_SECRET they were encrypted with';
const WRONG_SECRET =
  'cannot decrypt the secrets in the database: CRYPTO_SECRET is not the one they were encrypted with';
const DAMAGED = 'an encrypted secret in the database is damaged';

/** Raised when a sealed value cannot be opened: CRYPTO_SECRET is missing or not the one that sealed it. */
export class SecretKeyError extends ConfigError {
  constructor(message: string) {
    super('CRYPTO_SECRET', message);
  }
}

export const isSealed = (value: string | null | undefined): boolean =>
  typeof value === 'string' && (value.startsWith(SEALED_PREFIX) || value.startsWith(FIXED_PREFIX));
export const isDigest = (value: string | null | undefined): boolean =>
  typeof value === 'string' && value.startsWith(DIGEST_PREFIX);

/**
 * Encrypts secrets stored in the database with AES-256-GCM under a key derived (HKDF-SHA256) from CRYPTO_SECRET.
 * Without CRYPTO_SECRET, seal() stores plaintext as before; open() always accepts plaintext rows.
 * Values are opened once when loaded into memory, never per relay call.
 */
export class SecretBox {
  private readonly key: Buffer | undefined;
  private readonly digestKey: Buffer | undefined;
  private readonly fixedKey: Buffer | undefined;
  private readonly fixedIvKey: Buffer | undefined;

  constructor(secret: string | undefined) {
    if (!secret) return;
    const derive = (info: string) => Buffer.from(crypto.hkdfSync('sha256', secret, HKDF_SALT, info, KEY_BYTES));
    this.key = derive(SEAL_INFO);
    this.digestKey = derive(DIGEST_INFO);
    this.fixedKey = derive(FIXED_INFO);
    this.fixedIvKey = derive(FIXED_IV_INFO);
  }

  /** True when CRYPTO_SECRET is set (new values are sealed). */
  get enabled(): boolean {
    return this.key !== undefined;
  }

  /** The value as it should be stored: `enc:v1:<base64url>` when enabled; empty and already sealed values as they are. */
  seal(plain: string): string {
    if (!this.key || plain === '' || isSealed(plain)) return plain;
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * Deterministic sealing for secrets looked up by value (API token keys): AES-256-CTR under a synthetic IV, the
   * HMAC of the plaintext, which also authenticates it. Equal plaintexts give equal texts, so the stored form
   * is found with one indexed equality query; nothing else is revealed. A presented value is always sealed,
   * never passed through, so a sealed text copied from the database does not match itself.
   */
  sealFixed(plain: string): string {
    if (!this.fixedKey || !this.fixedIvKey || plain === '') return plain;
    const iv = crypto.createHmac('sha256', this.fixedIvKey).update(plain, 'utf8').digest().subarray(0, SIV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-ctr', this.fixedKey, iv);
    return FIXED_PREFIX + Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64url');
  }

  private openFixed(stored: string): string {
    if (!this.fixedKey || !this.fixedIvKey) throw new SecretKeyError(NOT_SET);
    const raw = Buffer.from(stored.slice(FIXED_PREFIX.length), 'base64url');
    if (raw.length <= SIV_BYTES) throw new SecretKeyError(DAMAGED);
    const iv = raw.subarray(0, SIV_BYTES);
    const decipher = crypto.createDecipheriv('aes-256-ctr', this.fixedKey, iv);
    const plain = Buffer.concat([decipher.update(raw.subarray(SIV_BYTES)), decipher.final()]).toString('utf8');
    const expected = crypto.createHmac('sha256', this.fixedIvKey).update(plain, 'utf8').digest().subarray(0, SIV_BYTES);
    if (!crypto.timingSafeEqual(iv, expected)) throw new SecretKeyError(WRONG_SECRET);
    return plain;
  }

  /** The plaintext of a stored value (plaintext rows pass through); throws SecretKeyError when it cannot be opened. */
  open(stored: string): string {
    if (!isSealed(stored)) return stored;
    if (stored.startsWith(FIXED_PREFIX)) return this.openFixed(stored);
    if (!this.key) throw new SecretKeyError(NOT_SET);
    const raw = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretKeyError(DAMAGED);
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretKeyError(WRONG_SECRET);
    }
  }

  /** open() for nullable columns. */
  openNullable(stored: string | null | undefined): string {
    return stored ? this.open(stored) : '';
  }

  /**
   * The form to store a secret that is only compared, never shown again: `hmac:v1:<base64url HMAC-SHA256>` when
   * enabled (deterministic, so it is found by one indexed equality query), the value itself otherwise.
   */
  lookupForm(value: string): string {
    // A value that already looks like a digest is hashed again: presenting a stored digest must not match it.
    if (!this.digestKey || value === '') return value;
    return DIGEST_PREFIX + crypto.createHmac('sha256', this.digestKey).update(value, 'utf8').digest('base64url');
  }
}
