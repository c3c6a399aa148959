// The authorization-code sign-in of a root-defined provider: the authorize URL (state, PKCE S256, nonce for the
// openid scope), the code exchange (auth_style), the user info, and the ID token checked against the provider's keys.
import { ErrorCode } from '@tollway/shared';
import crypto from 'node:crypto';
import { coded } from '../../lib/errors.js';
import { callExternal, type ExternalAnswer } from '../../lib/external-call.js';
import { randomString } from '../../lib/secrets.js';
import { providerError, userObjectOf } from '../oauth/provider-http.js';
import { identityOf } from './identity.js';
import { verifyJwt } from './jwt.js';
import type { OpenedProvider } from './providers.js';
import type { ExternalIdentity } from './signin.js';

/** PKCE code verifier length in random bytes (43 base64url characters, RFC 7636's minimum length). */
const VERIFIER_BYTES = 32;

/** What a sign-in sends and keeps: the PKCE verifier (its S256 challenge goes out) and the OpenID nonce. */
export interface SignInSecrets {
  verifier: string;
  nonce: string;
}

/** redirect_uri of a provider: the console's callback page for its slug. */
export const redirectUriOf = (origin: string, p: Pick<OpenedProvider, 'slug'>) => `${origin}/oauth/${p.slug}`;

const wantsOpenId = (scopes: string) => scopes.split(/\s+/).includes('openid');

/** A fresh PKCE verifier and, for the openid scope, a nonce. */
export function newSignInSecrets(p: OpenedProvider): SignInSecrets {
  return {
    verifier: crypto.randomBytes(VERIFIER_BYTES).toString('base64url'),
    nonce: wantsOpenId(p.scopes) ? randomString(16) : '',
  };
}

/** The authorize URL: code flow, the state, the verifier's S256 challenge and the nonce. */
export function authorizeUrl(p: OpenedProvider, origin: string, state: string, secrets: SignInSecrets): string {
  const url = new URL(p.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', p.client_id);
  url.searchParams.set('redirect_uri', redirectUriOf(origin, p));
  url.searchParams.set('scope', p.scopes);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', crypto.createHash('sha256').update(secrets.verifier).digest('base64url'));
  url.searchParams.set('code_challenge_method', 'S256');
  if (secrets.nonce) url.searchParams.set('nonce', secrets.nonce);
  return url.toString();
}

interface Tokens {
  accessToken: string;
  tokenType: string;
  idToken: string;
}

function tokensOf(p: OpenedProvider, answer: ExternalAnswer): Tokens {
  let body = answer.body as Record<string, unknown> | undefined;
  // Some servers (GitHub's style) answer a form.
  if (!body && answer.text.includes('=')) body = Object.fromEntries(new URLSearchParams(answer.text));
  const token = body?.access_token;
  if (answer.status >= 400 || typeof body?.error === 'string' || typeof token !== 'string' || !token)
    throw coded(
      ErrorCode.OAuthCodeRefused,
      `${p.name} refused the sign-in code (${providerError(answer)}): start the sign-in again`,
      { provider: p.name, reason: providerError(answer) },
    );
  return {
    accessToken: token,
    tokenType: typeof body?.token_type === 'string' && body.token_type ? body.token_type : 'Bearer',
    idToken: typeof body?.id_token === 'string' ? body.id_token : '',
  };
}

/** The code exchanged at the token endpoint: client credentials in the form (auth_style 0, 1) or Basic (2). */
async function exchange(p: OpenedProvider, code: string, origin: string, verifier: string): Promise<Tokens> {
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUriOf(origin, p),
  };
  if (verifier) form.code_verifier = verifier;
  const headers: Record<string, string> = {};
  if (p.auth_style === 2) {
    const basic = `${encodeURIComponent(p.client_id)}:${encodeURIComponent(p.secret)}`;
    headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
  } else {
    form.client_id = p.client_id;
    if (p.secret) form.client_secret = p.secret;
  }
  const answer = await callExternal(p.name, p.token_endpoint, { method: 'POST', form, headers }, [p.secret]);
  return tokensOf(p, answer);
}

/** The provider's JWKS: jwks_url, else the jwks_uri of its well-known document ('' when neither is known). */
export async function jwksUrlOf(p: Pick<OpenedProvider, 'name' | 'jwks_url' | 'well_known'>): Promise<string> {
  if (p.jwks_url) return p.jwks_url;
  if (!p.well_known) return '';
  const doc = await callExternal(p.name, p.well_known, { method: 'GET' });
  const uri = (doc.body as { jwks_uri?: unknown } | undefined)?.jwks_uri;
  return typeof uri === 'string' && /^https?:\/\//i.test(uri) ? uri : '';
}

/**
 * The code's user: the user info answer, with the ID token's claims under it when the provider sent one (its
 * signature, issuer, audience = client_id, expiry and nonce checked first; a provider whose keys are not known
 * has its ID token ignored, the user info alone counts). The user info's sub must be the ID token's.
 */
export async function codeIdentity(
  p: OpenedProvider,
  code: string,
  origin: string,
  sent: { verifier?: string; nonce?: string },
): Promise<ExternalIdentity> {
  const tokens = await exchange(p, code, origin, sent.verifier ?? '');
  let idClaims: Record<string, unknown> = {};
  if (tokens.idToken) {
    const jwksUrl = await jwksUrlOf(p);
    if (jwksUrl || p.public_key)
      idClaims = await verifyJwt(tokens.idToken, {
        jwksUrl,
        publicKey: p.public_key ?? '',
        issuer: p.issuer || undefined,
        audience: p.client_id,
        nonce: sent.nonce ?? '',
        code: ErrorCode.CustomOAuthIdTokenInvalid,
      });
  } else if (sent.nonce && (await jwksUrlOf(p)))
    // An OpenID provider with known keys asked for a nonce must answer an ID token carrying it.
    throw coded(ErrorCode.CustomOAuthIdTokenInvalid, 'the ID token is refused: the provider sent none', {
      reason: 'the provider sent none',
    });
  const tokenType = tokens.tokenType.toLowerCase() === 'bearer' ? 'Bearer' : tokens.tokenType;
  const info = userObjectOf(
    p.name,
    await callExternal(
      p.name,
      p.user_info_endpoint,
      { method: 'GET', headers: { authorization: `${tokenType} ${tokens.accessToken}` } },
      [tokens.accessToken],
    ),
  );
  if (typeof idClaims.sub === 'string' && info.sub !== undefined && String(info.sub) !== idClaims.sub)
    throw coded(ErrorCode.CustomOAuthIdTokenInvalid, 'the ID token is refused: its sub is not the user info sub', {
      reason: 'its sub is not the user info sub',
    });
  return identityOf(p, { ...idClaims, ...info });
}
