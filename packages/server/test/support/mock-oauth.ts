import crypto from 'node:crypto';
import http from 'node:http';
import { listenLocally } from './local-server.js';

export type MockProvider = 'github' | 'oidc' | 'linuxdo' | 'wechat';

/** Client credentials the mock accepts, per provider (and the WeChat server's token). */
export const MOCK_CLIENTS: Record<Exclude<MockProvider, 'wechat'>, { id: string; secret: string }> = {
  github: { id: 'gh-client', secret: 'gh-secret' },
  oidc: { id: 'oidc-client', secret: 'oidc-secret' },
  linuxdo: { id: 'ld-client', secret: 'ld-secret' },
};
export const MOCK_WECHAT_TOKEN = 'wechat-server-token';

export interface TokenRequest {
  provider: MockProvider;
  /** The token request's form or JSON fields (for WeChat: the code). */
  fields: Record<string, string>;
}

export interface MockOAuth {
  url: string;
  /** Environment variables pointing the app's fixed provider hosts at the mock. */
  env: Record<string, string>;
  /** A one-time code the token endpoint (WeChat: the user endpoint) trades for `user` (answered as is). */
  issueCode(provider: MockProvider, user: Record<string, unknown> | string): string;
  /** The user the OIDC authorize endpoint signs in next (each visit issues a code for it). */
  oidcUser: Record<string, unknown>;
  /** Every token exchange the mock accepted, oldest first. */
  exchanges: TokenRequest[];
  close(): Promise<void>;
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * A real HTTP server on 127.0.0.1 playing GitHub (web and API), an OIDC provider (authorize, token, userinfo),
 * LinuxDO Connect and a WeChat QR login server. Token endpoints check the client id and secret and take a code
 * issued by issueCode (or the OIDC authorize endpoint, which also holds the token request to its redirect_uri)
 * once; user endpoints check the bearer token.
 */
export async function startMockOAuth(): Promise<MockOAuth> {
  const codes = new Map<
    string,
    { provider: MockProvider; user: Record<string, unknown> | string; redirectUri?: string }
  >();
  const tokens = new Map<string, { provider: MockProvider; user: Record<string, unknown> | string }>();
  const exchanges: TokenRequest[] = [];
  const issueCode = (provider: MockProvider, user: Record<string, unknown> | string): string => {
    const code = `${provider}-code-${crypto.randomBytes(6).toString('hex')}`;
    codes.set(code, { provider, user });
    return code;
  };
  /** Trades a code for a token when the client and the code are right; the error answer otherwise. */
  const exchange = (
    provider: MockProvider,
    fields: Record<string, string>,
    clientId: string,
    secret: string,
  ): [number, unknown] => {
    const client = MOCK_CLIENTS[provider as Exclude<MockProvider, 'wechat'>];
    if (clientId !== client.id || secret !== client.secret)
      return [401, { error: 'invalid_client', error_description: 'client authentication failed' }];
    const issued = codes.get(fields.code ?? '');
    if (!issued || issued.provider !== provider)
      return [400, { error: 'invalid_grant', error_description: 'the code is wrong or used' }];
    if (issued.redirectUri !== undefined && fields.redirect_uri !== issued.redirectUri) {
      return [
        400,
        { error: 'invalid_grant', error_description: 'redirect_uri differs from the authorization request' },
      ];
    }
    codes.delete(fields.code!);
    const token = `${provider}-token-${crypto.randomBytes(8).toString('hex')}`;
    tokens.set(token, issued);
    exchanges.push({ provider, fields });
    return [200, { access_token: token, token_type: 'bearer' }];
  };
  const userOf = (provider: MockProvider, req: http.IncomingMessage): Record<string, unknown> | string | undefined => {
    const auth = req.headers.authorization ?? '';
    const held = auth.startsWith('Bearer ') ? tokens.get(auth.slice(7)) : undefined;
    return held && held.provider === provider ? held.user : undefined;
  };

  const mock: MockOAuth = {
    url: '',
    env: {},
    issueCode,
    oidcUser: {
      sub: 'oidc-browser-user',
      preferred_username: 'browser',
      name: 'Browser User',
      email: 'browser@idp.test',
    },
    exchanges,
    close: async () => undefined,
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = req.method === 'POST' ? await readBody(req) : '';
      const path = url.pathname;
      if (req.method === 'POST' && path === '/login/oauth/access_token') {
        // GitHub: JSON (or form) body with client_id, client_secret, code; errors come back with 200 like GitHub's.
        const fields = (req.headers['content-type'] ?? '').includes('json')
          ? (JSON.parse(body) as Record<string, string>)
          : Object.fromEntries(new URLSearchParams(body));
        if (!String(req.headers.accept).includes('application/json'))
          return send(res, 406, { error: 'send Accept: application/json' });
        const [, answer] = exchange('github', fields, fields.client_id ?? '', fields.client_secret ?? '');
        return send(res, 200, answer);
      }
      if (req.method === 'GET' && path === '/user') {
        if (!req.headers['user-agent'])
          return send(res, 403, {
            message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header',
          });
        const user = userOf('github', req);
        return user ? send(res, 200, user) : send(res, 401, { message: 'Bad credentials' });
      }
      if (req.method === 'GET' && path === '/oidc/authorize') {
        const q = url.searchParams;
        if (
          q.get('client_id') !== MOCK_CLIENTS.oidc.id ||
          q.get('response_type') !== 'code' ||
          !q.get('redirect_uri')
        ) {
          return send(res, 400, { error: 'invalid_request' });
        }
        const back = new URL(q.get('redirect_uri')!);
        const code = issueCode('oidc', mock.oidcUser);
        codes.get(code)!.redirectUri = q.get('redirect_uri')!;
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && path === '/oidc/token') {
        const fields = Object.fromEntries(new URLSearchParams(body));
        if (fields.grant_type !== 'authorization_code') return send(res, 400, { error: 'unsupported_grant_type' });
        const [status, answer] = exchange('oidc', fields, fields.client_id ?? '', fields.client_secret ?? '');
        return send(res, status, answer);
      }
      if (req.method === 'GET' && path === '/oidc/userinfo') {
        const user = userOf('oidc', req);
        return user ? send(res, 200, user) : send(res, 401, { error: 'invalid_token' });
      }
      if (req.method === 'POST' && path === '/oauth2/token') {
        // LinuxDO: the client as HTTP Basic, the code in the form.
        const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
        const [id = '', secret = ''] = basic.split(':');
        const fields = Object.fromEntries(new URLSearchParams(body));
        const [status, answer] = exchange('linuxdo', fields, id, secret);
        return send(res, status, answer);
      }
      if (req.method === 'GET' && path === '/api/user') {
        const user = userOf('linuxdo', req);
        return user ? send(res, 200, user) : send(res, 401, { error: 'invalid_token' });
      }
      if (req.method === 'GET' && path === '/api/wechat/user') {
        if (req.headers.authorization !== MOCK_WECHAT_TOKEN)
          return send(res, 200, { success: false, message: 'access token invalid' });
        const code = url.searchParams.get('code') ?? '';
        const issued = codes.get(code);
        if (!issued || issued.provider !== 'wechat')
          return send(res, 200, { success: false, message: 'invalid or expired verification code' });
        codes.delete(code);
        exchanges.push({ provider: 'wechat', fields: { code } });
        return send(res, 200, { success: true, message: '', data: issued.user });
      }
      send(res, 404, { error: 'not found' });
    })().catch((err: unknown) => send(res, 500, { error: String(err) }));
  });
  const local = await listenLocally(server);
  mock.url = local.url;
  mock.env = { GITHUB_BASE_URL: local.url, GITHUB_API_URL: local.url, LINUXDO_BASE_URL: local.url };
  mock.close = local.close;
  return mock;
}
