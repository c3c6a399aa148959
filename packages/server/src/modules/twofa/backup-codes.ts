import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { importedCodeMatches, isImportedCodeHash, normalizeImportedCode } from './imported-codes.js';

/** Backup codes: ten per user, 10 characters (50 bits) each, shown as XXXXX-XXXXX. */
export const BACKUP_CODE_COUNT = 10;
const BACKUP_CODE_LENGTH = 10;
/** Crockford's alphabet: no I, L, O or U to misread. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;
/** scrypt cost: slow enough that a leaked table cannot be searched, fast enough to try ten codes per attempt. */
const SCRYPT = { N: 4096, r: 8, p: 1 };
const HASH_BYTES = 32;
const SALT_BYTES = 16;

export function newBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODE_COUNT }, () => {
    const bytes = crypto.randomBytes(BACKUP_CODE_LENGTH);
    let code = '';
    for (const b of bytes) code += ALPHABET[b & 31];
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** Upper case without separators or spaces; undefined when it cannot be a backup code. */
export function normalizeBackupCode(input: string): string | undefined {
  const clean = input.replace(/[\s-]/g, '').toUpperCase();
  return clean.length === BACKUP_CODE_LENGTH && [...clean].every((c) => ALPHABET.includes(c)) ? clean : undefined;
}

export async function hashBackupCode(code: string): Promise<string> {
  const normal = normalizeBackupCode(code);
  if (!normal) throw new Error('not a backup code');
  const salt = crypto.randomBytes(SALT_BYTES);
  const hash = await scrypt(normal, salt, HASH_BYTES, SCRYPT);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** True when the normalized code is the one `stored` was made from. */
export async function backupCodeMatches(normal: string, stored: string): Promise<boolean> {
  const [kind, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(normal, Buffer.from(salt, 'base64'), expected.length, SCRYPT);
  return expected.length === HASH_BYTES && crypto.timingSafeEqual(expected, actual);
}

/** A typed code, checked against one stored hash of either scheme. */
export type BackupCodeCheck = (stored: string) => Promise<boolean>;

/**
 * The check of a typed code against stored hashes: Tollway's own (scrypt, 10 characters) or one imported from
 * new-api (bcrypt, XXXX-XXXX); undefined when the input can be neither.
 */
export function backupCodeCheck(input: string): BackupCodeCheck | undefined {
  const own = normalizeBackupCode(input);
  const imported = normalizeImportedCode(input);
  if (!own && !imported) return undefined;
  return async (stored) => {
    if (isImportedCodeHash(stored)) return imported ? importedCodeMatches(imported, stored) : false;
    return own ? backupCodeMatches(own, stored) : false;
  };
}
