import crypto from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { listenLocally } from './local-server.js';
import type { MockBehavior } from './mock-upstream.js';

/** One app's credentials as the Spark console lists them. */
export interface SparkApp {
  appId: string;
  apiSecret: string;
  apiKey: string;
}

export interface MockSpark {
  /** http://127.0.0.1:<port> (the adaptor speaks ws:// to it). */
  url: string;
  /** Frames received after a verified handshake, newest last (socket path without the query). */
  requests: { path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }[];
  /** By API key: a status to refuse the handshake with, or the answer's pieces and usage. */
  behaviors: Map<string, MockBehavior>;
  /** Handshakes refused for a bad signature. */
  refusedSignatures: number;
  close(): Promise<void>;
}

const PIECES = ['Hello', ' from', ' the', ' mock', '!'];
/** How far the signed date may be from now. */
const CLOCK_SKEW_MS = 5 * 60_000;

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * A mock of iFlytek Spark's chat WebSocket (`/{version}/chat`, `/chat/{domain}`): the handshake's signed URL is
 * verified as Spark documents it (HMAC-SHA256 with the app's API secret over host, date and request line; the date
 * within five minutes), a bad one refused with 401 as Spark does; the frame's app id must be the key's app
 * (10313 otherwise). The answer is text frames, the last (status 2) with the usage.
 */
export async function startMockSpark(apps: SparkApp[]): Promise<MockSpark> {
  const byKey = new Map(apps.map((a) => [a.apiKey, a]));
  const mock: Omit<MockSpark, 'url' | 'close'> = { requests: [], behaviors: new Map(), refusedSignatures: 0 };
  const wss = new WebSocketServer({ noServer: true });
  const server = http.createServer((_req, res) => res.writeHead(426).end());

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const host = String(req.headers.host ?? '');
    const date = url.searchParams.get('date') ?? '';
    const auth = Buffer.from(url.searchParams.get('authorization') ?? '', 'base64').toString('utf8');
    const fields = Object.fromEntries([...auth.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const app = byKey.get(fields.api_key ?? '');
    const expected = app
      ? crypto
          .createHmac('sha256', app.apiSecret)
          .update(`host: ${host}\ndate: ${date}\nGET ${url.pathname} HTTP/1.1`)
          .digest('base64')
      : '';
    const fresh = Math.abs(Date.parse(date) - Date.now()) < CLOCK_SKEW_MS;
    if (
      !app ||
      !fresh ||
      url.searchParams.get('host') !== host ||
      fields.algorithm !== 'hmac-sha256' ||
      fields.headers !== 'host date request-line' ||
      fields.signature !== expected
    ) {
      mock.refusedSignatures++;
      return refuse(socket, 401, 'HMAC signature cannot be verified');
    }
    const behavior = mock.behaviors.get(app.apiKey);
    if (behavior?.failStatus) return refuse(socket, behavior.failStatus, behavior.failMessage ?? 'refused');
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, app, url.pathname, req.headers));
  });

  function serve(ws: WebSocket, app: SparkApp, path: string, headers: http.IncomingHttpHeaders): void {
    ws.once('message', (data) => {
      const body = JSON.parse(String(data)) as {
        header?: { app_id?: string };
        parameter?: { chat?: { domain?: string } };
      };
      mock.requests.push({ path, body, headers });
      const sid = `cht000b${crypto.randomBytes(4).toString('hex')}`;
      if (body.header?.app_id !== app.appId) {
        ws.send(JSON.stringify({ header: { code: 10313, message: 'appid cannot match apikey', sid, status: 2 } }));
        return ws.close();
      }
      const b = mock.behaviors.get(app.apiKey) ?? {};
      const pieces = b.pieces ?? PIECES;
      pieces.forEach((content, i) => {
        const last = i === pieces.length - 1;
        const frame = {
          header: { code: 0, message: 'Success', sid, status: last ? 2 : 1 },
          payload: {
            choices: { status: last ? 2 : 1, seq: i, text: [{ content, role: 'assistant', index: 0 }] },
            ...(last && !b.omitUsage
              ? {
                  usage: {
                    text: {
                      question_tokens: 2,
                      prompt_tokens: b.promptTokens ?? 12,
                      completion_tokens: b.completionTokens ?? 5,
                      total_tokens: (b.promptTokens ?? 12) + (b.completionTokens ?? 5),
                    },
                  },
                }
              : {}),
          },
        };
        ws.send(JSON.stringify(frame));
      });
      ws.close();
    });
  }

  const local = await listenLocally(server, () => {
    for (const c of wss.clients) c.terminate();
  });
  return Object.assign(mock, { url: local.url, close: local.close });
}
