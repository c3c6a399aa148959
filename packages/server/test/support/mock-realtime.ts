import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { listenLocally } from './local-server.js';

/** Usage the mock reports in every response.done (OpenAI realtime shape). */
export const MOCK_REALTIME_USAGE = {
  total_tokens: 150,
  input_tokens: 100,
  output_tokens: 50,
  input_token_details: { cached_tokens: 20, text_tokens: 40, audio_tokens: 60, cached_tokens_details: { text_tokens: 20, audio_tokens: 0 } },
  output_token_details: { text_tokens: 10, audio_tokens: 40 },
};

export interface RealtimeConnection {
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  /** Client events received, by type. */
  received: string[];
  /** Bytes of base64 audio appended with input_audio_buffer.append. */
  audioChars: number;
  /** The mock's end of the socket (a test reads its send backlog). */
  socket?: WebSocket;
}

export interface MockRealtime {
  url: string;
  connections: RealtimeConnection[];
  close(): Promise<void>;
}

/**
 * A mock realtime upstream written from the public event reference: OpenAI `/v1/realtime?model=` (Bearer key)
 * and Azure: GA `/openai/v1/realtime?model=` and preview `/openai/realtime?deployment=&api-version=` (api-key). On connect it sends session.created; each
 * response.create is answered with response.created, two text deltas and response.done with usage. The key
 * `down-key` is refused with HTTP 503. A `test.flood` event {count, size} makes it send that many large
 * `response.audio.delta` events as fast as it can (for backpressure tests).
 */
export async function startMockRealtime(): Promise<MockRealtime> {
  const connections: RealtimeConnection[] = [];
  const server = http.createServer((_req, res) => res.writeHead(426).end());
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const azurePreview = url.pathname === '/openai/realtime';
    const azure = azurePreview || url.pathname === '/openai/v1/realtime';
    const key = azure ? String(req.headers['api-key'] ?? '') : String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const known = url.pathname === '/v1/realtime' || azure;
    const status = !known ? 404 : !key ? 401 : key === 'down-key' ? 503 : 0;
    if (status) {
      const body = JSON.stringify({ error: { message: `mock realtime refused (${status}) for key ${key}`, type: 'server_error' } });
      socket.end(`HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
      return;
    }
    const conn: RealtimeConnection = { path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, received: [], audioChars: 0 };
    connections.push(conn);
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, conn, azurePreview ? conn.query.deployment! : conn.query.model!));
  });

  function serve(ws: WebSocket, conn: RealtimeConnection, model: string) {
    conn.socket = ws;
    let seq = 0;
    const send = (event: Record<string, unknown>) => ws.send(JSON.stringify({ event_id: `event_${++seq}`, ...event }));
    send({ type: 'session.created', session: { id: 'sess_mock', object: 'realtime.session', model } });
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as { type: string; audio?: string; count?: number; size?: number };
      conn.received.push(event.type);
      if (event.type === 'test.flood') {
        const delta = 'A'.repeat(event.size ?? 0);
        for (let i = 0; i < (event.count ?? 0); i++) send({ type: 'response.audio.delta', response_id: 'resp_flood', delta });
      }
      if (event.type === 'input_audio_buffer.append') conn.audioChars += event.audio?.length ?? 0;
      if (event.type !== 'response.create') return;
      const id = `resp_${seq}`;
      send({ type: 'response.created', response: { id, object: 'realtime.response', status: 'in_progress', output: [], usage: null } });
      for (const delta of ['Hello', ' there']) send({ type: 'response.text.delta', response_id: id, item_id: 'item_1', output_index: 0, content_index: 0, delta });
      send({ type: 'response.done', response: { id, object: 'realtime.response', status: 'completed', output: [], usage: MOCK_REALTIME_USAGE } });
    });
  }

  const { url, close } = await listenLocally(server, () => {
    for (const c of wss.clients) c.terminate();
  });
  return { url, connections, close };
}
