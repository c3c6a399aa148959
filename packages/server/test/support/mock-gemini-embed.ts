import http from 'node:http';
import { listenLocally } from './local-server.js';

/** Tokens Vertex reports per embedded text in the mock's predictions. */
export const VERTEX_TOKENS_PER_TEXT = 4;
/** The mock's vector for the i-th instance of a call. */
export const vertexVector = (i: number) => [0.75, -0.5, i];

const MOCK_ACCESS_TOKEN = 'ya29.mock-embed';

export interface MockVertexEmbed {
  url: string;
  /** Predict calls received, newest last. */
  requests: { path: string; authorization: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/**
 * A small Vertex AI for embeddings: an OAuth token endpoint that grants any assertion, and
 * `…/publishers/google/models/{model}:predict` answering one prediction per instance with its token count, as
 * Vertex does (`{predictions: [{embeddings: {values, statistics: {token_count}}}]}`); other calls 404.
 */
export async function startMockVertexEmbed(): Promise<MockVertexEmbed> {
  const requests: MockVertexEmbed['requests'] = [];
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      if (path === '/token')
        return json(res, 200, { access_token: MOCK_ACCESS_TOKEN, expires_in: 3599, token_type: 'Bearer' });
      if (req.headers.authorization !== `Bearer ${MOCK_ACCESS_TOKEN}`)
        return json(res, 401, { error: { code: 401, message: 'no token', status: 'UNAUTHENTICATED' } });
      if (!/\/publishers\/google\/models\/[^/:]+:predict$/.test(path))
        return json(res, 404, { error: { code: 404, message: `no route ${path}`, status: 'NOT_FOUND' } });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { instances?: unknown[] };
      requests.push({ path, authorization: req.headers.authorization, body });
      const predictions = (body.instances ?? []).map((_, i) => ({
        embeddings: { values: vertexVector(i), statistics: { token_count: VERTEX_TOKENS_PER_TEXT, truncated: false } },
      }));
      json(res, 200, { predictions, metadata: { billableCharacterCount: 0 } });
    });
  });
  const { url, close } = await listenLocally(server);
  return { url, requests, close };
}
