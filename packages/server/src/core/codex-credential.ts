/**
 * A Codex channel's key (type 57): the ChatGPT OAuth credential as one JSON object, with new-api's field names
 * (Codex CLI's auth.json tokens plus the account and the expiry). The relay sends `access_token` and
 * `account_id`; the management API's sign-in and refresh write the whole object.
 */
export interface CodexCredential {
  access_token: string;
  account_id: string;
  refresh_token?: string;
  id_token?: string;
  email?: string;
  /** When the access token expires (RFC 3339). */
  expired?: string;
  /** When the tokens were last obtained (RFC 3339). */
  last_refresh?: string;
  /** Always "codex" when written here. */
  type?: string;
}

/** What is wrong with a key that is not a usable Codex credential. */
export type CodexCredentialProblem = 'not_json' | 'no_access_token' | 'no_account_id';

/** The credential in a key, or what is wrong with it. */
export function readCodexCredential(key: string): CodexCredential | CodexCredentialProblem {
  let j: unknown;
  try {
    j = JSON.parse(key);
  } catch {
    return 'not_json';
  }
  if (j === null || typeof j !== 'object' || Array.isArray(j)) return 'not_json';
  const o = j as Record<string, unknown>;
  if (typeof o.access_token !== 'string' || !o.access_token.trim()) return 'no_access_token';
  if (typeof o.account_id !== 'string' || !o.account_id.trim()) return 'no_account_id';
  return o as unknown as CodexCredential;
}

/** The credential's refresh token, trimmed ('' when it has none). */
export const refreshTokenOf = (c: CodexCredential): string =>
  typeof c.refresh_token === 'string' ? c.refresh_token.trim() : '';
