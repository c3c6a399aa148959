import bcrypt from 'bcryptjs';

/** bcrypt, so databases imported from new-api (Go's bcrypt, $2a$) still log in. */
const COST = 10;

export const hashPassword = (plain: string): Promise<string> => bcrypt.hash(plain, COST);

let dummyHash: Promise<string> | undefined;

/**
 * Spends the work of one password check against a hash of the same cost and answers false: a login for an
 * unknown user (or one without a password) takes as long as one with a wrong password.
 */
export async function spendPasswordCheck(plain: string): Promise<false> {
  dummyHash ??= bcrypt.hash('tollway-dummy-password', COST);
  await bcrypt.compare(plain, await dummyHash);
  return false;
}

export async function verifyPassword(plain: string, hash: string): Promise<boolean> {
  if (!hash) return spendPasswordCheck(plain);
  try {
    return await bcrypt.compare(plain, hash);
  } catch {
    return false;
  }
}
