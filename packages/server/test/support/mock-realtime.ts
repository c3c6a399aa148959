import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { listenLocally } from './local-server.js';

/** Usage the mock reports in every response.done (OpenAI realtime shape). */
export const MOCK_REALTIME_USAGE = {
  total_tokens: 150,
  input_tokens: 100,
  output_tokens: 50,
  input_token_details: {
    cached_tokens: 20,
    text_tokens: 40,
    audio_tokens: 60,
    cached_tokens_details: { text_tokens: 20, audio_tokens: 0 },
  },
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
  /** Resolves when the gateway closed this upstream socket. */
  closed?: Promise<void>;
}

/** Bytes of PCM16 audio per output audio token (24 kHz mono, 20 tokens a second) in the mock's usage. */
export const MOCK_AUDIO_BYTES_PER_TOKEN = 2400;

/**
 * A scripted response (`test.respond`): `audio` deltas of `audioBytes` decoded bytes each, then `text` deltas;
 * with `holdAfter`, the mock sends that many deltas and waits for `test.continue` before the rest and
 * response.done. response.done reports `inputTokens` and the output tokens the deltas carry (audio at
 * MOCK_AUDIO_BYTES_PER_TOKEN, a token per text delta), unless `usage` is false.
 */
export interface ScriptedResponse {
  type: 'test.respond';
  audio?: number;
  audioBytes?: number;
  text?: string[];
  holdAfter?: number;
  inputTokens?: number;
  usage?: boolean;
}

/**
 * A scripted input transcription (`test.transcribe`): conversation.item.input_audio_transcription.delta events
 * for `deltas`, then (unless `hold`) .completed with the transcript and `usage` (OpenAI's tokens or duration shape).
 */
export interface ScriptedTranscription {
  type: 'test.transcribe';
  itemId: string;
  deltas?: string[];
  hold?: boolean;
  usage?: Record<string, unknown>;
}

export interface MockRealtime {
  url: string;
  connections: RealtimeConnection[];
  close(): Promise<void>;
}

/**
 * A mock realtime upstream written from the public event reference: OpenAI `/v1/realtime?model=` (Bearer key)
 * and Azure: GA `/openai/v1/realtime?model=` and preview `/openai/realtime?deployment=&api-version=` (api-key). On connect it sends session.created; each
 * response.create is answered with response.created, two text deltas and response.done with usage; session.update
 * with session.updated (the session merged). `test.respond` and `test.transcribe` script responses and input
 * transcriptions (see ScriptedResponse, ScriptedTranscription). The key
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
    const key = azure
      ? String(req.headers['api-key'] ?? '')
      : String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const known = url.pathname === '/v1/realtime' || azure;
    const status = !known ? 404 : !key ? 401 : key === 'down-key' ? 503 : 0;
    if (status) {
      const body = JSON.stringify({
        error: { message: `mock realtime refused (${status}) for key ${key}`, type: 'server_error' },
      });
      socket.end(
        `HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      return;
    }
    const conn: RealtimeConnection = {
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      received: [],
      audioChars: 0,
    };
    connections.push(conn);
    wss.handleUpgrade(req, socket, head, (ws) =>
      serve(ws, conn, azurePreview ? conn.query.deployment! : conn.query.model!),
    );
  });

  function serve(ws: WebSocket, conn: RealtimeConnection, model: string) {
    conn.socket = ws;
    conn.closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
    let seq = 0;
    let held: (() => void) | undefined;
    const send = (event: Record<string, unknown>) => ws.send(JSON.stringify({ event_id: `event_${++seq}`, ...event }));
    let session: Record<string, unknown> = { id: 'sess_mock', object: 'realtime.session', model };
    send({ type: 'session.created', session });
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as { type: string; audio?: string; count?: number; size?: number };
      conn.received.push(event.type);
      if (event.type === 'test.respond') held = respond(event as unknown as ScriptedResponse);
      if (event.type === 'test.transcribe') transcribe(event as unknown as ScriptedTranscription);
      if (event.type === 'test.continue') held?.();
      if (event.type === 'session.update') {
        session = { ...session, ...(event as unknown as { session?: Record<string, unknown> }).session };
        send({ type: 'session.updated', session });
      }
      if (event.type === 'test.flood') {
        const delta = 'A'.repeat(event.size ?? 0);
        for (let i = 0; i < (event.count ?? 0); i++)
          send({ type: 'response.audio.delta', response_id: 'resp_flood', delta });
      }
      if (event.type === 'input_audio_buffer.append') conn.audioChars += event.audio?.length ?? 0;
      if (event.type !== 'response.create') return;
      const id = `resp_${seq}`;
      send({
        type: 'response.created',
        response: { id, object: 'realtime.response', status: 'in_progress', output: [], usage: null },
      });
      for (const delta of ['Hello', ' there'])
        send({
          type: 'response.text.delta',
          response_id: id,
          item_id: 'item_1',
          output_index: 0,
          content_index: 0,
          delta,
        });
      send({
        type: 'response.done',
        response: { id, object: 'realtime.response', status: 'completed', output: [], usage: MOCK_REALTIME_USAGE },
      });
    });

    /** Sends a scripted response; returns what sends the rest when it holds part of it back. */
    function respond(r: ScriptedResponse): (() => void) | undefined {
      const id = `resp_${++seq}`;
      const audioBytes = r.audioBytes ?? MOCK_AUDIO_BYTES_PER_TOKEN;
      const audio = Buffer.alloc(audioBytes, 1).toString('base64');
      const events: Record<string, unknown>[] = [
        ...Array.from({ length: r.audio ?? 0 }, () => ({
          type: 'response.audio.delta',
          response_id: id,
          item_id: 'item_a',
          output_index: 0,
          content_index: 0,
          delta: audio,
        })),
        ...(r.text ?? []).map((delta) => ({
          type: 'response.text.delta',
          response_id: id,
          item_id: 'item_t',
          output_index: 0,
          content_index: 0,
          delta,
        })),
      ];
      const audioTokens = Math.ceil(((r.audio ?? 0) * audioBytes) / MOCK_AUDIO_BYTES_PER_TOKEN);
      const textTokens = r.text?.length ?? 0;
      const inputTokens = r.inputTokens ?? 0;
      const usage = {
        total_tokens: inputTokens + audioTokens + textTokens,
        input_tokens: inputTokens,
        output_tokens: audioTokens + textTokens,
        input_token_details: { cached_tokens: 0, text_tokens: inputTokens, audio_tokens: 0 },
        output_token_details: { text_tokens: textTokens, audio_tokens: audioTokens },
      };
      const done = {
        type: 'response.done',
        response: {
          id,
          object: 'realtime.response',
          status: 'completed',
          output: [],
          usage: r.usage === false ? null : usage,
        },
      };
      send({
        type: 'response.created',
        response: { id, object: 'realtime.response', status: 'in_progress', output: [], usage: null },
      });
      const first = r.holdAfter ?? events.length;
      for (const e of events.slice(0, first)) send(e);
      const rest = () => {
        if (ws.readyState !== ws.OPEN) return;
        for (const e of events.slice(first)) send(e);
        send(done);
      };
      if (r.holdAfter === undefined) return void rest();
      return rest;
    }

    function transcribe(r: ScriptedTranscription) {
      const base = { item_id: r.itemId, content_index: 0 };
      for (const delta of r.deltas ?? [])
        send({ type: 'conversation.item.input_audio_transcription.delta', ...base, delta });
      if (r.hold) return;
      send({
        type: 'conversation.item.input_audio_transcription.completed',
        ...base,
        transcript: (r.deltas ?? []).join(''),
        ...(r.usage ? { usage: r.usage } : {}),
      });
    }
  }

  const { url, close } = await listenLocally(server, () => {
    for (const c of wss.clients) c.terminate();
  });
  return { url, connections, close };
}
