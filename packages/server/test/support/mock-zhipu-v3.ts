import crypto from 'node:crypto';
import http from 'node:http';
import { listenLocally } from './local-server.js';
import type { MockBehavior } from './mock-upstream.js';

export interface MockZhipuV3 {
  url: string;
  /** Calls made with a verified token, newest last. */
  requests: { path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders; keyId: string }[];
  /** By key id. */
  behaviors: Map<string, MockBehavior>;
  close(): Promise<void>;
}

const PIECES = ['Hello', ' from', ' the', ' mock', '!'];

const json = (res: http.ServerResponse, body: unknown) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** The key id of a token signed HS256 (header `sign_type: SIGN`) with that key's secret and not expired, else undefined. */
function verify(token: string, keys: Record<string, string>): string | undefined {
  const [head = '', claims = '', signature = ''] = token.split('.');
  try {
    const h = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string; sign_type?: string };
    const c = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as {
      api_key?: string;
      exp?: number;
      timestamp?: number;
    };
    const secret = keys[c.api_key ?? ''];
    if (h.alg !== 'HS256' || h.sign_type !== 'SIGN' || secret === undefined) return undefined;
    const expected = crypto.createHmac('sha256', secret).update(`${head}.${claims}`).digest('base64url');
    // exp and timestamp are milliseconds.
    if (expected !== signature || !(Number(c.exp) > Date.now()) || !(Number(c.timestamp) <= Date.now()))
      return undefined;
    return c.api_key;
  } catch {
    return undefined;
  }
}

/**
 * A mock of Zhipu's ChatGLM v3 model API: `POST /api/paas/v3/model-api/{model}/invoke` and `…/sse-invoke`, the
 * Authorization header a JWT verified against the key's secret (code 1002 in a 200 answer when it is not, as Zhipu
 * does). `invoke` answers a quoted content with the usage; `sse-invoke` sends `add` events of raw text and a
 * `finish` event whose `meta:` line carries the usage.
 */
export async function startMockZhipuV3(keys: Record<string, string>): Promise<MockZhipuV3> {
  const mock: Omit<MockZhipuV3, 'url' | 'close'> = { requests: [], behaviors: new Map() };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const m = /^\/api\/paas\/v3\/model-api\/([^/]+)\/(invoke|sse-invoke)$/.exec(path);
      if (!m) return res.writeHead(404).end();
      const keyId = verify(String(req.headers.authorization ?? ''), keys);
      if (!keyId)
        return json(res, {
          code: 1002,
          msg: 'Authorization Token非法，请确认Authorization Token正确传递。',
          success: false,
        });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      mock.requests.push({ path, body, headers: req.headers, keyId });
      const b = mock.behaviors.get(keyId) ?? {};
      if (b.failStatus) return json(res, { code: 1261, msg: b.failMessage ?? 'Prompt 超长', success: false });
      const pieces = b.pieces ?? PIECES;
      const usage = {
        prompt_tokens: b.promptTokens ?? 12,
        completion_tokens: b.completionTokens ?? 5,
        total_tokens: (b.promptTokens ?? 12) + (b.completionTokens ?? 5),
      };
      if (m[2] === 'invoke')
        return json(res, {
          code: 200,
          msg: '操作成功',
          success: true,
          data: {
            request_id: 'req-mock',
            task_id: 'task-mock',
            task_status: 'SUCCESS',
            choices: [{ role: 'assistant', content: JSON.stringify(pieces.join('')) }],
            usage,
          },
        });
      res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
      for (const piece of pieces) res.write(`event:add\nid:task-mock\ndata:${piece}\n\n`);
      const meta = { task_status: 'SUCCESS', usage, task_id: 'task-mock', request_id: 'req-mock' };
      res.end(`event:finish\nid:task-mock\ndata:\nmeta:${JSON.stringify(meta)}\n\n`);
    });
  });
  const local = await listenLocally(server);
  return Object.assign(mock, { url: local.url, close: local.close });
}
