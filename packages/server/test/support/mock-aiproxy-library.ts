import http from 'node:http';
import { listenLocally } from './local-server.js';
import type { MockBehavior } from './mock-upstream.js';

export interface MockAIProxyLibrary {
  url: string;
  /** Calls made with a known key and its library, newest last. */
  requests: { path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }[];
  /** By API key. */
  behaviors: Map<string, MockBehavior>;
  close(): Promise<void>;
}

const PIECES = ['Hello', ' from', ' the', ' mock', '!'];
/** Sources the library cites when the question asks for them. */
export const MOCK_LIBRARY_DOCUMENTS = [{ title: 'Guide', url: 'https://docs.example/guide' }];

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * A mock of AI Proxy's library API, `POST /api/library/ask` with a Bearer key: each key may ask only its own
 * library (`libraryId`); an unknown key is refused with 401. The answer has no usage; a question containing
 * "sources" is answered with documents. Streams are `data:` JSON lines, the last with `finish`.
 */
export async function startMockAIProxyLibrary(libraries: Record<string, string>): Promise<MockAIProxyLibrary> {
  const mock: Omit<MockAIProxyLibrary, 'url' | 'close'> = { requests: [], behaviors: new Map() };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== '/api/library/ask') return json(res, 404, { success: false, errCode: 404, message: 'not found' });
      const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (libraries[key] === undefined)
        return json(res, 401, { success: false, errCode: 401, message: 'invalid api key' });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      if (body.libraryId !== libraries[key])
        return json(res, 200, { success: false, errCode: 403, message: 'no access to this library' });
      mock.requests.push({ path: req.url, body, headers: req.headers });
      const b = mock.behaviors.get(key) ?? {};
      if (b.failStatus)
        return json(res, b.failStatus, { success: false, errCode: b.failStatus, message: b.failMessage ?? 'refused' });
      const pieces = b.pieces ?? PIECES;
      const documents = String(body.query).includes('sources') ? MOCK_LIBRARY_DOCUMENTS : [];
      if (body.stream !== true) return json(res, 200, { success: true, answer: pieces.join(''), documents });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const content of pieces)
        res.write(`data:${JSON.stringify({ content, model: body.model, finish: false })}\n`);
      res.end(`data:${JSON.stringify({ content: '', model: body.model, documents, finish: true })}\n`);
    });
  });
  const local = await listenLocally(server);
  return Object.assign(mock, { url: local.url, close: local.close });
}
