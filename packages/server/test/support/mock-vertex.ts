import crypto from 'node:crypto';
import http from 'node:http';
import { listenLocally } from './local-server.js';
import { answerAnthropic, answerGemini } from './mock-native.js';
import type { MockBehavior } from './mock-upstream.js';

export interface MockVertex {
  url: string;
  /** The token endpoint to put in service-account keys. */
  tokenUri: string;
  /** Token exchanges that succeeded, and the reasons of refused ones. */
  tokenGrants: { iss: string; iat: number; exp: number }[];
  tokenRefusals: string[];
  /** Model calls with a valid token, newest last. */
  requests: {
    path: string;
    project: string;
    region: string;
    publisher: string;
    model: string;
    method: string;
    body: Record<string, unknown>;
    headers: http.IncomingHttpHeaders;
  }[];
  /** Behaviour by project id. */
  behaviors: Map<string, MockBehavior>;
  close(): Promise<void>;
}

const DEFAULTS = { promptTokens: 12, completionTokens: 5, pieces: ['Hello', ' from', ' the', ' mock', '!'] };
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** A service-account key (JSON text) with a fresh RSA key pair, pointing at the mock's token endpoint. */
export function makeServiceAccount(
  project: string,
  tokenUri: string,
): { keyText: string; clientEmail: string; publicKey: crypto.KeyObject } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = `relay@${project}.iam.gserviceaccount.com`;
  const key = {
    type: 'service_account',
    project_id: project,
    private_key_id: crypto.randomBytes(8).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: clientEmail,
    client_id: '1234567890',
    token_uri: tokenUri,
  };
  return { keyText: JSON.stringify(key), clientEmail, publicKey };
}

/**
 * A mock Vertex AI: an OAuth token endpoint that verifies the RS256 JWT assertion with the service account's
 * public key (and its claims: aud, scope, one-hour lifetime), and the Gemini (generateContent,
 * streamGenerateContent?alt=sse) and Claude (rawPredict, streamRawPredict) model routes, which need a token it
 * issued.
 */
export async function startMockVertex(): Promise<
  MockVertex & { trust(clientEmail: string, publicKey: crypto.KeyObject): void }
> {
  const keys = new Map<string, crypto.KeyObject>();
  const tokens = new Set<string>();
  const tokenGrants: MockVertex['tokenGrants'] = [];
  const tokenRefusals: string[] = [];
  const requests: MockVertex['requests'] = [];
  const behaviors = new Map<string, MockBehavior>();
  let url = '';
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const googleError = (res: http.ServerResponse, code: number, status: string, message: string) =>
    json(res, code, { error: { code, message, status } });

  function grant(res: http.ServerResponse, raw: string) {
    const form = new URLSearchParams(raw);
    const refuse = (why: string) => {
      tokenRefusals.push(why);
      json(res, 400, { error: 'invalid_grant', error_description: why });
    };
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return refuse('unsupported grant_type');
    const [h, p, s] = (form.get('assertion') ?? '').split('.');
    if (!h || !p || !s) return refuse('assertion is not a JWT');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string; typ?: string };
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as {
      iss?: string;
      scope?: string;
      aud?: string;
      iat?: number;
      exp?: number;
    };
    if (header.alg !== 'RS256' || header.typ !== 'JWT') return refuse('header must be RS256 JWT');
    const key = keys.get(claims.iss ?? '');
    if (!key) return refuse('Invalid JWT Signature.');
    if (!crypto.verify('sha256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url')))
      return refuse('Invalid JWT Signature.');
    if (claims.aud !== `${url}/token`) return refuse(`aud must be ${url}/token`);
    if (claims.scope !== SCOPE) return refuse('scope must be cloud-platform');
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.iat !== 'number' || claims.exp !== claims.iat + 3600 || Math.abs(claims.iat - now) > 300)
      return refuse('Invalid JWT: iat/exp');
    const token = `ya29.mock-${crypto.randomBytes(12).toString('hex')}`;
    tokens.add(token);
    tokenGrants.push({ iss: claims.iss!, iat: claims.iat, exp: claims.exp });
    json(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0]!;
      if (path === '/token') return grant(res, raw);
      const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!tokens.has(token))
        return googleError(
          res,
          401,
          'UNAUTHENTICATED',
          'Request had invalid authentication credentials. Expected OAuth 2 access token.',
        );
      const m =
        /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/.exec(
          path,
        );
      if (!m) return googleError(res, 404, 'NOT_FOUND', `no route ${path}`);
      const [, project, region, publisher, model, method] = m as unknown as string[];
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      requests.push({
        path: req.url ?? '',
        project: project!,
        region: region!,
        publisher: publisher!,
        model: decodeURIComponent(model!),
        method: method!,
        body,
        headers: req.headers,
      });
      const b = { ...DEFAULTS, ...(behaviors.get(project!) ?? {}) };
      if (b.failStatus) return googleError(res, b.failStatus, 'RESOURCE_EXHAUSTED', b.failMessage ?? 'Quota exceeded');
      if (publisher === 'google') {
        if (!['generateContent', 'streamGenerateContent'].includes(method!))
          return googleError(res, 400, 'INVALID_ARGUMENT', `unknown method ${method}`);
        return void answerGemini(res, path, b);
      }
      if (!['rawPredict', 'streamRawPredict'].includes(method!))
        return googleError(res, 400, 'INVALID_ARGUMENT', `unknown method ${method}`);
      if ('model' in body || body.anthropic_version !== 'vertex-2023-10-16')
        return json(res, 400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'anthropic_version vertex-2023-10-16 required; model: Extra inputs are not permitted',
          },
        });
      if ((method === 'streamRawPredict') !== (body.stream === true))
        return json(res, 400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'stream must be true exactly for streamRawPredict' },
        });
      return void answerAnthropic(res, { ...body, model: decodeURIComponent(model!) }, b);
    });
  });
  const local = await listenLocally(server);
  url = local.url;
  return {
    url,
    tokenUri: `${url}/token`,
    tokenGrants,
    tokenRefusals,
    requests,
    behaviors,
    trust: (clientEmail, publicKey) => keys.set(clientEmail, publicKey),
    close: local.close,
  };
}
