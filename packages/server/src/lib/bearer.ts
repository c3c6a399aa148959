import crypto from 'node:crypto';

const BEARER = /^Bearer\s+(\S+)$/i;

/** Compared as digests, so neither the time taken nor a length mismatch tells anything about the token. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/** Whether an Authorization header carries `expected` as its bearer token. */
export function bearerMatches(authorization: string | undefined, expected: string): boolean {
  const given = BEARER.exec(authorization ?? '')?.[1];
  return given !== undefined && sameToken(given, expected);
}
