import crypto from 'node:crypto';
import http from 'node:http';
import { listenLocally } from './local-server.js';
import type { MockBehavior } from './mock-upstream.js';

export interface MockErnie {
  url: string;
  /** Chat calls made with a valid access token, newest last (path without the query). */
  requests: { path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders; token: string }[];
  /** By client id (the key's API Key). */
  behaviors: Map<string, MockBehavior>;
  /** Access tokens issued, by client id. */
  issued: Map<string, number>;
  /** Forgets every token issued (the next chat call with one is refused with error 110). */
  revokeTokens(): void;
  close(): Promise<void>;
}

const PIECES = ['Hello', ' from', ' the', ' mock', '!'];
/** Baidu's token lifetime: 30 days. */
const TOKEN_LIFETIME_S = 2_592_000;

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * A mock of Baidu's ERNIE v1: `POST /oauth/2.0/token` (client_credentials; an unknown client or wrong secret is
 * refused with 401 `invalid_client`, as Baidu does) issues access tokens; the wenxinworkshop chat API takes only a
 * token it issued (error 110 in a 200 answer otherwise) and answers whole or as SSE chunks (`is_end` with the usage).
 */
export async function startMockErnie(clients: Record<string, string>): Promise<MockErnie> {
  const tokens = new Map<string, string>();
  const mock: Omit<MockErnie, 'url' | 'close'> = {
    requests: [],
    behaviors: new Map(),
    issued: new Map(),
    revokeTokens: () => tokens.clear(),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://mock');
      if (url.pathname === '/oauth/2.0/token') {
        const id = url.searchParams.get('client_id') ?? '';
        if (url.searchParams.get('grant_type') !== 'client_credentials' || clients[id] === undefined)
          return json(res, 401, { error: 'invalid_client', error_description: 'unknown client id' });
        if (clients[id] !== url.searchParams.get('client_secret'))
          return json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
        const token = `24.${crypto.randomBytes(8).toString('hex')}`;
        tokens.set(token, id);
        mock.issued.set(id, (mock.issued.get(id) ?? 0) + 1);
        return json(res, 200, { access_token: token, expires_in: TOKEN_LIFETIME_S, scope: 'public' });
      }
      if (!url.pathname.startsWith('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/')) return json(res, 404, {});
      const token = url.searchParams.get('access_token') ?? '';
      const client = tokens.get(token);
      if (!client) return json(res, 200, { error_code: 110, error_msg: 'Access token invalid or no longer valid' });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      mock.requests.push({ path: url.pathname, body, headers: req.headers, token });
      const b = mock.behaviors.get(client) ?? {};
      if (b.failStatus) return json(res, 200, { error_code: 336003, error_msg: b.failMessage ?? 'invalid argument' });
      const pieces = b.pieces ?? PIECES;
      const usage = { prompt_tokens: b.promptTokens ?? 12, completion_tokens: b.completionTokens ?? 5 };
      const usageOf = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
      if (body.stream !== true)
        return json(res, 200, {
          id: 'as-mock',
          object: 'chat.completion',
          created: 1700000000,
          result: pieces.join(''),
          is_truncated: false,
          need_clear_history: false,
          finish_reason: 'normal',
          usage: usageOf,
        });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      pieces.forEach((result, i) => {
        const last = i === pieces.length - 1;
        const chunk = {
          id: 'as-mock',
          object: 'chat.completion',
          created: 1700000000,
          sentence_id: i,
          is_end: last,
          is_truncated: false,
          result,
          ...(last ? { finish_reason: 'normal' } : {}),
          // Baidu's chunks carry the running usage; only the last is whole.
          usage: last ? usageOf : { prompt_tokens: usage.prompt_tokens, completion_tokens: 0, total_tokens: 0 },
        };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      });
      res.end();
    });
  });
  const local = await listenLocally(server);
  return Object.assign(mock, { url: local.url, close: local.close });
}
