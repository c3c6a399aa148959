import crypto from 'node:crypto';
import http from 'node:http';
import { listenLocally } from './local-server.js';
import type { MockBehavior } from './mock-upstream.js';

export interface MockCodex {
  url: string;
  /** Calls made with a known access token and its account, newest last. */
  requests: { path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }[];
  /** By access token. */
  behaviors: Map<string, MockBehavior>;
  /** Forms posted to the sign-in service's token endpoint (`POST /oauth/token`), newest last. */
  tokenRequests: Record<string, string>[];
  /** Usage documents answered (`GET /backend-api/wham/usage`), by the access token they were asked with. */
  usageRequests: string[];
  /**
   * The user signs in at the authorize address: a one-time code for the PKCE challenge and redirect address it
   * carried, bound to `account` (and `email`), as the redirect to the CLI's callback would carry it.
   */
  authorize(authorizeUrl: string, account: string, email?: string): string;
  /** A refresh token the sign-in service accepts (once: it rotates) for `account`. */
  addRefreshToken(refreshToken: string, account: string): void;
  /** The backend no longer accepts this access token (it expired). */
  expire(accessToken: string): void;
  close(): Promise<void>;
}

/** The client id and redirect address the Codex CLI registers (the sign-in service refuses others). */
export const CODEX_CLIENT = 'app_EMoamEEZ73f0CkXaXp7hrann';
export const CODEX_REDIRECT = 'http://localhost:1455/auth/callback';
/** Seconds an access token issued by the mock lives (expires_in). */
export const CODEX_TOKEN_LIFETIME = 864_000;
/** The usage document the mock backend answers (the fields of the ChatGPT backend's /wham/usage). */
export const CODEX_USAGE = {
  plan_type: 'plus',
  rate_limit: {
    allowed: true,
    limit_reached: false,
    primary_window: {
      used_percent: 12,
      limit_window_seconds: 18_000,
      reset_after_seconds: 3600,
      reset_at: 1_900_000_000,
    },
    secondary_window: {
      used_percent: 3,
      limit_window_seconds: 604_800,
      reset_after_seconds: 86_400,
      reset_at: 1_900_100_000,
    },
  },
};

/** An unsigned JWT with these claims (the backend's tokens are JWTs whose claims name the account). */
const jwt = (claims: Record<string, unknown>): string =>
  [{ alg: 'none', typ: 'JWT' }, claims].map((p) => Buffer.from(JSON.stringify(p)).toString('base64url')).join('.') +
  '.sig';

const PIECES = ['Hello', ' from', ' the', ' mock', '!'];
const PATH = '/backend-api/codex/responses';

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * A mock of OpenAI's sign-in service (`POST /oauth/token`, the Codex CLI's public client) and of the ChatGPT
 * backend's usage document (`GET /backend-api/wham/usage`) and Codex Responses API (`POST /backend-api/codex/responses`): the Bearer access
 * token must be a known one and `chatgpt-account-id` its account (401 `token_expired` / 403 otherwise); the body
 * must stream, not store, and carry `instructions`, as the backend demands. It answers a Responses event stream
 * whose `response.completed` carries the usage.
 */
export async function startMockCodex(initial: Record<string, string>): Promise<MockCodex> {
  const accounts: Record<string, string> = { ...initial };
  const codes = new Map<string, { challenge: string; redirect: string; account: string; email: string }>();
  const refreshTokens = new Map<string, string>();
  let issued = 0;
  /** New tokens for an account: the access token accepted by the backend from now on, a single-use refresh token. */
  const issue = (account: string, email: string) => {
    issued++;
    const claims = { 'https://api.openai.com/auth': { chatgpt_account_id: account }, email, n: issued };
    const access = jwt({ ...claims, typ: 'access' });
    accounts[access] = account;
    const refresh = `rt-${account}-${issued}`;
    refreshTokens.set(refresh, account);
    return { access_token: access, refresh_token: refresh, id_token: jwt(claims), expires_in: CODEX_TOKEN_LIFETIME };
  };
  /** The sign-in service's token endpoint: authorization_code (PKCE S256 checked) and refresh_token grants. */
  const tokenEndpoint = (res: http.ServerResponse, form: URLSearchParams) => {
    const f = Object.fromEntries(form);
    mock.tokenRequests.push(f);
    if (f.client_id !== CODEX_CLIENT) return json(res, 401, { error: 'invalid_client' });
    if (f.grant_type === 'authorization_code') {
      const c = codes.get(f.code ?? '');
      codes.delete(f.code ?? '');
      const challenge = crypto
        .createHash('sha256')
        .update(f.code_verifier ?? '')
        .digest('base64url');
      if (!c || c.redirect !== f.redirect_uri || c.challenge !== challenge)
        return json(res, 400, { error: 'invalid_grant', error_description: 'code or verifier mismatch' });
      return json(res, 200, issue(c.account, c.email));
    }
    if (f.grant_type === 'refresh_token') {
      const account = refreshTokens.get(f.refresh_token ?? '');
      refreshTokens.delete(f.refresh_token ?? '');
      if (!account) return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token already used' });
      const { id_token: _, ...tokens } = issue(account, '');
      return json(res, 200, tokens);
    }
    return json(res, 400, { error: 'unsupported_grant_type' });
  };
  const mock: Omit<MockCodex, 'url' | 'close'> = {
    requests: [],
    behaviors: new Map(),
    tokenRequests: [],
    usageRequests: [],
    authorize(authorizeUrl, account, email = `${account}@example.com`) {
      const q = new URL(authorizeUrl).searchParams;
      if (q.get('client_id') !== CODEX_CLIENT || q.get('code_challenge_method') !== 'S256')
        throw new Error('not a Codex CLI authorize address');
      const code = `ac-${crypto.randomBytes(6).toString('hex')}`;
      codes.set(code, { challenge: q.get('code_challenge')!, redirect: q.get('redirect_uri')!, account, email });
      return code;
    },
    addRefreshToken: (refreshToken, account) => void refreshTokens.set(refreshToken, account),
    expire: (accessToken) => void delete accounts[accessToken],
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/oauth/token')
        return tokenEndpoint(res, new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (req.method === 'GET' && req.url === '/backend-api/wham/usage') {
        mock.usageRequests.push(token);
        if (accounts[token] === undefined || req.headers['chatgpt-account-id'] !== accounts[token])
          return json(res, 401, { detail: 'Could not parse your authentication token.' });
        return json(res, 200, CODEX_USAGE);
      }
      if (req.url !== PATH) return json(res, 404, { detail: 'Not Found' });
      if (accounts[token] === undefined)
        return json(res, 401, {
          error: {
            message: 'Provided authentication token is expired. Please try signing in again.',
            code: 'token_expired',
          },
        });
      if (req.headers['chatgpt-account-id'] !== accounts[token])
        return json(res, 403, { error: { message: 'account mismatch' } });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      if (body.stream !== true || body.store !== false || typeof body.instructions !== 'string')
        return json(res, 400, {
          detail: 'Stream must be set to true; Store must be set to false; Instructions are required',
        });
      mock.requests.push({ path: PATH, body, headers: req.headers });
      const b = mock.behaviors.get(token) ?? {};
      if (b.failStatus) return json(res, b.failStatus, { error: { message: b.failMessage ?? 'refused' } });
      const id = 'resp_mock';
      const model = String(body.model);
      const send = (type: string, fields: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      send('response.created', { response: { id, model, status: 'in_progress' } });
      for (const delta of b.pieces ?? PIECES)
        send('response.output_text.delta', { item_id: 'msg_mock', output_index: 0, content_index: 0, delta });
      const usage = { input_tokens: b.promptTokens ?? 12, output_tokens: b.completionTokens ?? 5 };
      send('response.completed', {
        response: {
          id,
          model,
          status: 'completed',
          usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens },
        },
      });
      res.end();
    });
  });
  const local = await listenLocally(server);
  return Object.assign(mock, { url: local.url, close: local.close });
}
