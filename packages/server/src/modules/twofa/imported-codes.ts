import bcrypt from 'bcryptjs';

/**
 * Backup codes imported from new-api (two_fa_backup_codes): 8 characters of A–Z and 0–9 shown as XXXX-XXXX,
 * stored as Go's bcrypt of that XXXX-XXXX form (common.HashBackupCode → Password2Hash). Tollway verifies them
 * by that scheme; its own codes are scrypt hashes with a `scrypt$` prefix, so the stored text tells them apart.
 */
const NEW_API_CODE_LENGTH = 8;
const NEW_API_GROUP = 4;
const NEW_API_CODE = /^[A-Z0-9]+$/;
/** A bcrypt hash as Go ($2a$) or another bcrypt ($2b$, $2y$) writes it: version and two-digit cost. */
const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$/;

/** True when `stored` is a bcrypt hash: an imported new-api code. */
export const isImportedCodeHash = (stored: string): boolean => BCRYPT_HASH.test(stored);

/** The XXXX-XXXX form new-api hashed, from a typed code (any case, with or without the dash or spaces). */
export function normalizeImportedCode(input: string): string | undefined {
  const clean = input.replace(/[\s-]/g, '').toUpperCase();
  if (clean.length !== NEW_API_CODE_LENGTH || !NEW_API_CODE.test(clean)) return undefined;
  return `${clean.slice(0, NEW_API_GROUP)}-${clean.slice(NEW_API_GROUP)}`;
}

/** True when the normalized code is the one the imported bcrypt hash was made from. */
export async function importedCodeMatches(normal: string, stored: string): Promise<boolean> {
  try {
    return await bcrypt.compare(normal, stored);
  } catch {
    return false;
  }
}
