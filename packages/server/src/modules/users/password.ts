import bcrypt from 'bcryptjs';

/** bcrypt, so databases imported from new-api (Go's bcrypt, $2a$) still log in. */
const COST = 10;

export const hashPassword = (plain: string): Promise<string> => bcrypt.hash(plain, COST);

export async function verifyPassword(plain: string, hash: string): Promise<boolean> {
  if (!hash) return false;
  try {
    return await bcrypt.compare(plain, hash);
  } catch {
    return false;
  }
}
