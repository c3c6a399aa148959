import http from 'node:http';
import { listenLocally } from './local-server.js';

/** Keys the mock accepts; `slow-…` keys answer after `slowMs`. Anything else is refused with 401 echoing the key. */
export const GOOD_KEY = 'sk-good-0123456789abcdefghij';
export const SLOW_KEY = 'sk-slow-0123456789abcdefghij';
export const BAD_KEY = 'sk-bad-0123456789abcdefghijk';

export interface ChannelMock {
  url: string;
  /** Every request seen: method, path (with query) and the parsed body. */
  seen: { method: string; path: string; auth: string; body: unknown }[];
  slowMs: number;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/**
 * A small upstream on 127.0.0.1 speaking the OpenAI wire format (chat completions, models, billing) plus the
 * Gemini model list and the OpenRouter, SiliconFlow and DeepSeek balance calls.
 */
export async function startChannelMock(): Promise<ChannelMock> {
  const mock: ChannelMock = { url: '', seen: [], slowMs: 300, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://mock');
      const auth = String(req.headers.authorization ?? req.headers['x-api-key'] ?? '');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      mock.seen.push({ method: req.method ?? '', path: url.pathname + url.search, auth, body });
      const key = url.searchParams.get('key') ?? auth.replace(/^Bearer /, '');
      if (key !== GOOD_KEY && key !== SLOW_KEY) {
        return json(res, 401, {
          error: {
            message: `Incorrect API key provided: ${key}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        });
      }
      const answer = () => {
        switch (url.pathname) {
          case '/v1/chat/completions': {
            const model = (body as { model?: string })?.model ?? '';
            return json(res, 200, {
              id: 'chatcmpl-mock',
              object: 'chat.completion',
              created: 1,
              model,
              choices: [{ index: 0, message: { role: 'assistant', content: 'h' }, finish_reason: 'length' }],
              usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
            });
          }
          case '/v1/models':
            return json(res, 200, {
              object: 'list',
              data: [
                { id: 'gpt-4o-mini', object: 'model' },
                { id: 'gpt-4o', object: 'model' },
              ],
            });
          case '/v1beta/models':
            return json(res, 200, { models: [{ name: 'models/gemini-2.5-pro' }, { name: 'models/gemini-2.5-flash' }] });
          case '/v1/dashboard/billing/subscription':
            return json(res, 200, { hard_limit_usd: 100 });
          case '/v1/dashboard/billing/usage':
            return json(res, 200, { total_usage: 2500 });
          case '/api/v1/credits':
            return json(res, 200, { data: { total_credits: 20, total_usage: 5.5 } });
          case '/v1/user/info':
            return json(res, 200, { code: 20000, status: true, data: { totalBalance: '12.34' } });
          case '/user/balance':
            return json(res, 200, {
              is_available: true,
              balance_infos: [
                { currency: 'CNY', total_balance: '110.00' },
                { currency: 'USD', total_balance: '15.00' },
              ],
            });
          default:
            return json(res, 404, { error: { message: 'not found' } });
        }
      };
      if (key === SLOW_KEY) setTimeout(answer, mock.slowMs);
      else setTimeout(answer, 15);
    });
  });
  ({ url: mock.url, close: mock.close } = await listenLocally(server));
  return mock;
}
