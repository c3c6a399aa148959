// A small OpenID Connect issuer of the tests' own, on 127.0.0.1: discovery document, JWKS (an RS256 key made with
// node:crypto), an authorization endpoint that redirects back with a code, a token endpoint that checks client
// authentication and the PKCE code_verifier, user info, and ID tokens carrying the nonce. Users and their claims
// are set per test; a disabled user gets no code.
import crypto from 'node:crypto';
import type http from 'node:http';
import { SignJWT, exportJWK, type JWK } from 'jose';
import type { UserPublic } from '@tollway/shared';
import type { CallResult, Client } from './app.js';
import { serveMock } from './local-server.js';
import { oauthCallback, setCookies } from './oauth-flow.js';

export interface IssuerUser {
  /** Extra claims (groups, email, name, ...); sub is the user's key. */
  claims: Record<string, unknown>;
  disabled?: boolean;
}

interface PendingCode {
  sub: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  method: string;
  nonce: string;
}

export interface TestIssuer {
  url: string;
  close(): Promise<void>;
  clientId: string;
  clientSecret: string;
  /** The user the authorization endpoint signs in next (a browser's choice at the provider). */
  signInAs: string;
  users: Map<string, IssuerUser>;
  /** What the token endpoint saw last (for assertions). */
  lastTokenRequest?: { form: URLSearchParams; authorization: string };
  /** Changes what the ID token says (a test of refusals): a wrong nonce, a foreign key, a past expiry... */
  tamper: { nonce?: string; foreignKey?: boolean; expired?: boolean; audience?: string };
  /** Signs any JWT with the issuer's key (external JWT sign-in tests). */
  sign(claims: Record<string, unknown>, opts?: { expiresIn?: string; foreignKey?: boolean }): Promise<string>;
  /** The PEM SPKI of the issuer's public key. */
  publicKeyPem: string;
  hits: string[];
}

const KID = 'test-key-1';

export async function startIssuer(opts: { clientId?: string; clientSecret?: string } = {}): Promise<TestIssuer> {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const foreign = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  const tokens = new Map<string, string>();

  const issuer: TestIssuer = {
    url: '',
    close: async () => undefined,
    clientId: opts.clientId ?? 'tollway-test-client',
    clientSecret: opts.clientSecret ?? 'test-client-secret',
    signInAs: '',
    users: new Map(),
    tamper: {},
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    hits: [],
    async sign(claims, o = {}) {
      const key = o.foreignKey ? foreign.privateKey : privateKey;
      // iss and iat as the claims give them (a test of refusals may set others), else the issuer's and now.
      return new SignJWT({ iss: issuer.url, iat: Math.floor(Date.now() / 1000), ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: KID })
        .setExpirationTime(o.expiresIn ?? '5m')
        .sign(key);
    },
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  async function token(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) {
    const form = new URLSearchParams(raw.toString('utf8'));
    const authorization = String(req.headers.authorization ?? '');
    issuer.lastTokenRequest = { form, authorization };
    let clientId = form.get('client_id') ?? '';
    let secret = form.get('client_secret') ?? '';
    if (authorization.startsWith('Basic ')) {
      const [id, s] = Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':');
      clientId = decodeURIComponent(id ?? '');
      secret = decodeURIComponent(s ?? '');
    }
    if (clientId !== issuer.clientId || secret !== issuer.clientSecret)
      return json(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
    const code = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    if (!code || code.clientId !== clientId || code.redirectUri !== form.get('redirect_uri'))
      return json(res, 400, { error: 'invalid_grant', error_description: 'unknown code' });
    if (code.challenge) {
      const verifier = form.get('code_verifier') ?? '';
      const expected = crypto.createHash('sha256').update(verifier).digest('base64url');
      if (code.method !== 'S256' || expected !== code.challenge)
        return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    }
    const user = issuer.users.get(code.sub);
    const access = crypto.randomBytes(16).toString('hex');
    tokens.set(access, code.sub);
    const t = issuer.tamper;
    const idToken = await new SignJWT({ ...user?.claims, sub: code.sub, nonce: t.nonce ?? code.nonce })
      .setProtectedHeader({ alg: 'RS256', kid: KID })
      .setIssuer(issuer.url)
      .setAudience(t.audience ?? clientId)
      .setIssuedAt(t.expired ? Math.floor(Date.now() / 1000) - 7200 : undefined)
      .setExpirationTime(t.expired ? Math.floor(Date.now() / 1000) - 3600 : '5m')
      .sign(t.foreignKey ? foreign.privateKey : privateKey);
    json(res, 200, { access_token: access, token_type: 'Bearer', expires_in: 300, id_token: idToken });
  }

  function authorize(url: URL, res: http.ServerResponse) {
    const q = url.searchParams;
    const redirect = new URL(q.get('redirect_uri') ?? '');
    const user = issuer.users.get(issuer.signInAs);
    if (q.get('client_id') !== issuer.clientId || !user || user.disabled) {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('state', q.get('state') ?? '');
      return res.writeHead(302, { location: redirect.toString() }).end();
    }
    const code = crypto.randomBytes(12).toString('hex');
    codes.set(code, {
      sub: issuer.signInAs,
      clientId: issuer.clientId,
      redirectUri: q.get('redirect_uri') ?? '',
      challenge: q.get('code_challenge') ?? '',
      method: q.get('code_challenge_method') ?? '',
      nonce: q.get('nonce') ?? '',
    });
    redirect.searchParams.set('code', code);
    redirect.searchParams.set('state', q.get('state') ?? '');
    res.writeHead(302, { location: redirect.toString() }).end();
  }

  return serveMock(issuer, (req, res, raw) => {
    const url = new URL(req.url ?? '/', issuer.url);
    issuer.hits.push(url.pathname);
    switch (url.pathname) {
      case '/.well-known/openid-configuration':
        return json(res, 200, {
          issuer: issuer.url,
          authorization_endpoint: `${issuer.url}/authorize`,
          token_endpoint: `${issuer.url}/token`,
          userinfo_endpoint: `${issuer.url}/userinfo`,
          jwks_uri: `${issuer.url}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
          scopes_supported: ['openid', 'profile', 'email', 'groups'],
        });
      case '/jwks':
        return json(res, 200, { keys: [jwk] });
      case '/authorize':
        return authorize(url, res);
      case '/token':
        return void token(req, res, raw);
      case '/userinfo': {
        const sub = tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
        const user = sub === undefined ? undefined : issuer.users.get(sub);
        if (!user || user.disabled) return json(res, 401, { error: 'invalid_token' });
        return json(res, 200, { ...user.claims, sub });
      }
      default:
        res.writeHead(404).end();
    }
  });
}

/** A root's body for an authorization-code provider `slug` at `issuer` (its endpoints, keys and client). */
export function oauthCodeProvider(issuer: TestIssuer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Acme SSO',
    slug: 'acme',
    kind: 'oauth_code',
    enabled: true,
    client_id: issuer.clientId,
    client_secret: issuer.clientSecret,
    authorization_endpoint: `${issuer.url}/authorize`,
    token_endpoint: `${issuer.url}/token`,
    user_info_endpoint: `${issuer.url}/userinfo`,
    jwks_url: `${issuer.url}/jwks`,
    issuer: issuer.url,
    scopes: 'openid profile email',
    ...extra,
  };
}

/**
 * The browser's trip through provider `slug`: the authorize URL from the server (its state cookie kept), the
 * issuer's redirect back, then the console's callback call as `c`. `edit` may change the code and state sent back.
 */
export async function signInThroughIssuer(
  c: Client,
  slug = 'acme',
  edit?: (code: string, state: string) => [string, string],
): Promise<CallResult<UserPublic>> {
  const start = await c.call<{ url: string }>('GET', `/api/oauth/custom/${slug}/authorize`);
  if (!start.body.success) return start as unknown as CallResult<UserPublic>;
  const cookie = setCookies(start)
    .find((h) => h.startsWith('oauth_state='))!
    .split(';')[0]!;
  const back = await fetch(start.body.data!.url, { redirect: 'manual' });
  const location = new URL(back.headers.get('location')!);
  let code = location.searchParams.get('code') ?? '';
  let state = location.searchParams.get('state') ?? '';
  if (edit) [code, state] = edit(code, state);
  return oauthCallback(c, slug, code, state, cookie);
}
