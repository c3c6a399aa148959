import http from 'node:http';
import { listenLocally } from './local-server.js';

/** A model the mock cannot find (pull and delete answer 404 with Ollama's error body). */
export const MISSING_MODEL = 'no-such-model';
export const OLLAMA_VERSION = '0.9.6';

export interface MockOllama {
  url: string;
  /** Requests seen: method, path, Authorization header and parsed body. */
  seen: { method: string; path: string; auth: string; body: Record<string, unknown> | undefined }[];
  /** Models present (pull adds, delete removes). */
  models: Set<string>;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

/** The progress lines of a pull as Ollama streams them (application/x-ndjson), success last. */
const pullLines = (digest: string) => [
  { status: 'pulling manifest' },
  { status: `pulling ${digest.slice(7, 19)}`, digest, total: 2000, completed: 0 },
  { status: `pulling ${digest.slice(7, 19)}`, digest, total: 2000, completed: 1000 },
  { status: `pulling ${digest.slice(7, 19)}`, digest, total: 2000, completed: 2000 },
  { status: 'verifying sha256 digest' },
  { status: 'writing manifest' },
  { status: 'success' },
];

/**
 * An Ollama server on 127.0.0.1 speaking its documented model API: GET /api/version, POST /api/pull (stream true
 * as NDJSON progress, false as one {"status":"success"}), DELETE /api/delete (200 with no body, 404 when absent),
 * GET /api/tags. Errors are {"error": "..."} as Ollama sends them, mid-stream too.
 */
export async function startMockOllama(): Promise<MockOllama> {
  const mock: MockOllama = { url: '', seen: [], models: new Set(['llama3.2:latest']), close: async () => undefined };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://mock').pathname;
      let body: Record<string, unknown> | undefined;
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      } catch {
        return json(res, 400, { error: 'invalid JSON' });
      }
      mock.seen.push({ method: req.method ?? '', path, auth: String(req.headers.authorization ?? ''), body });
      const model = typeof body?.model === 'string' ? body.model : '';
      if (req.method === 'GET' && path === '/api/version') return json(res, 200, { version: OLLAMA_VERSION });
      if (req.method === 'GET' && path === '/api/tags')
        return json(res, 200, { models: [...mock.models].map((name) => ({ name, model: name, size: 1 })) });
      if (req.method === 'DELETE' && path === '/api/delete') {
        if (!mock.models.delete(model)) return json(res, 404, { error: `model '${model}' not found` });
        res.writeHead(200);
        return res.end();
      }
      if (req.method === 'POST' && path === '/api/pull') {
        if (!model) return json(res, 400, { error: 'model is required' });
        const missing = model === MISSING_MODEL;
        if (body?.stream === false) {
          if (missing) return json(res, 500, { error: 'pull model manifest: file does not exist' });
          mock.models.add(model);
          return json(res, 200, { status: 'success' });
        }
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        if (missing) {
          res.write(`${JSON.stringify({ status: 'pulling manifest' })}\n`);
          return res.end(`${JSON.stringify({ error: 'pull model manifest: file does not exist' })}\n`);
        }
        const lines = pullLines(`sha256:${'ab12'.repeat(16)}`);
        let i = 0;
        const next = () => {
          if (i === lines.length) {
            mock.models.add(model);
            return res.end();
          }
          res.write(`${JSON.stringify(lines[i++])}\n`);
          setTimeout(next, 5);
        };
        return next();
      }
      json(res, 404, { error: 'not found' });
    });
  });
  const local = await listenLocally(server);
  mock.url = local.url;
  mock.close = local.close;
  return mock;
}
