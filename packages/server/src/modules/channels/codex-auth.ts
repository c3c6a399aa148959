import crypto from 'node:crypto';
import { ErrorCode } from '@tollway/shared';
import { callExternal } from '../../lib/external-call.js';
import { coded } from '../../lib/errors.js';

/**
 * OpenAI's sign-in service as the Codex CLI uses it (authorization code with PKCE S256, public client): the
 * client id, redirect address and scope the CLI registers, so the redirect lands on the CLI's local callback and
 * the administrator pastes that address back.
 */
export const CODEX_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
export const CODEX_REDIRECT_URI = 'http://localhost:1455/auth/callback';
export const CODEX_SCOPE = 'openid profile email offline_access';
/** The JWT claim holding the ChatGPT account (`chatgpt_account_id`) and, in the access token, the profile. */
const AUTH_CLAIM = 'https://api.openai.com/auth';
const PROFILE_CLAIM = 'https://api.openai.com/profile';
const SERVICE = 'Codex sign-in';

/** A sign-in's secrets, kept server-side until it completes. */
export interface PkceFlow {
  state: string;
  verifier: string;
  authorizeUrl: string;
}

/** Tokens answered by the token endpoint. */
export interface CodexTokens {
  accessToken: string;
  refreshToken: string;
  idToken: string;
  /** Epoch ms at which the access token expires. */
  expiresAt: number;
}

const b64url = (b: Buffer): string => b.toString('base64url');

/** The S256 challenge of a verifier (RFC 7636). */
export const pkceChallenge = (verifier: string): string =>
  b64url(crypto.createHash('sha256').update(verifier, 'ascii').digest());

/** A fresh state and verifier, and the authorize address carrying the state and the verifier's challenge. */
export function newPkceFlow(authBase: string): PkceFlow {
  const state = crypto.randomBytes(16).toString('hex');
  const verifier = b64url(crypto.randomBytes(32));
  const url = new URL(`${authBase}/oauth/authorize`);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', CODEX_CLIENT_ID);
  q.set('redirect_uri', CODEX_REDIRECT_URI);
  q.set('scope', CODEX_SCOPE);
  q.set('code_challenge', pkceChallenge(verifier));
  q.set('code_challenge_method', 'S256');
  q.set('state', state);
  q.set('id_token_add_organizations', 'true');
  q.set('codex_cli_simplified_flow', 'true');
  q.set('originator', 'codex_cli_rs');
  return { state, verifier, authorizeUrl: url.toString() };
}

/**
 * The code and state in what the administrator pasted: the redirected address (or its query), or new-api's
 * `code#state` form; a bare code has no state.
 */
export function parseSignInInput(input: string): { code: string; state: string } {
  const v = input.trim();
  const hash = v.indexOf('#');
  if (hash >= 0 && !v.includes('code=')) return { code: v.slice(0, hash).trim(), state: v.slice(hash + 1).trim() };
  if (v.includes('code=')) {
    let q: URLSearchParams;
    try {
      q = new URL(v).searchParams;
    } catch {
      q = new URLSearchParams(v.replace(/^\?/, ''));
    }
    return { code: (q.get('code') ?? '').trim(), state: (q.get('state') ?? '').trim() };
  }
  return { code: v, state: '' };
}

/** The claims of a JWT (not verified: they only name the account the token is for), or undefined. */
function claimsOf(jwt: string): Record<string, unknown> | undefined {
  const part = jwt.split('.')[1];
  if (!part) return undefined;
  try {
    const o = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const stringAt = (o: unknown, key: string): string => {
  const v = o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v.trim() : '';
};

/** The ChatGPT account and e-mail address the tokens are for (the id token's claims, else the access token's). */
export function identityOf(tokens: Pick<CodexTokens, 'accessToken' | 'idToken'>): {
  accountId: string;
  email: string;
} {
  let accountId = '';
  let email = '';
  for (const jwt of [tokens.idToken, tokens.accessToken]) {
    const c = jwt ? claimsOf(jwt) : undefined;
    if (!c) continue;
    accountId ||= stringAt(c[AUTH_CLAIM], 'chatgpt_account_id');
    email ||= stringAt(c, 'email') || stringAt(c[PROFILE_CLAIM], 'email');
  }
  return { accountId, email };
}

/** Posts a grant to the token endpoint; refuses an error answer or one without the tokens. */
async function grant(authBase: string, form: Record<string, string>, previousRefresh = ''): Promise<CodexTokens> {
  const res = await callExternal(SERVICE, `${authBase}/oauth/token`, { method: 'POST', form });
  const b = (res.body ?? {}) as Record<string, unknown>;
  if (res.status < 200 || res.status >= 300) {
    const reason = stringAt(b, 'error_description') || stringAt(b, 'error') || `HTTP ${res.status}`;
    throw coded(ErrorCode.CodexSignInFailed, `Codex sign-in failed: ${reason.slice(0, 200)}`, {
      reason: reason.slice(0, 200),
    });
  }
  const accessToken = stringAt(b, 'access_token');
  const refreshToken = stringAt(b, 'refresh_token') || previousRefresh;
  const expiresIn = typeof b.expires_in === 'number' && b.expires_in > 0 ? b.expires_in : 0;
  if (!accessToken || !refreshToken || !expiresIn)
    throw coded(ErrorCode.CodexSignInFailed, 'Codex sign-in failed: the token answer lacks tokens', {
      reason: 'the token answer lacks tokens',
    });
  return { accessToken, refreshToken, idToken: stringAt(b, 'id_token'), expiresAt: Date.now() + expiresIn * 1000 };
}

/** Exchanges an authorization code and its PKCE verifier for tokens. */
export const exchangeCode = (authBase: string, code: string, verifier: string): Promise<CodexTokens> =>
  grant(authBase, {
    grant_type: 'authorization_code',
    client_id: CODEX_CLIENT_ID,
    code,
    code_verifier: verifier,
    redirect_uri: CODEX_REDIRECT_URI,
  });

/** New tokens for a refresh token (the answer may rotate it; a missing one keeps the old). */
export const refreshTokens = (authBase: string, refreshToken: string): Promise<CodexTokens> =>
  grant(
    authBase,
    { grant_type: 'refresh_token', client_id: CODEX_CLIENT_ID, refresh_token: refreshToken },
    refreshToken,
  );
