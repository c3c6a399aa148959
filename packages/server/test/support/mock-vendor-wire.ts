import type http from 'node:http';

/** Answers a JSON body. */
export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts an SSE answer; `send(data)` writes a `data:` event, `send(data, event)` a named one. */
export function openSse(
  res: http.ServerResponse,
  lineEnd = '\n',
): { send(data: unknown, event?: string): void; raw(text: string): void; end(): void } {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return {
    send(data, event) {
      res.write(`${event ? `event: ${event}${lineEnd}` : ''}data: ${JSON.stringify(data)}${lineEnd}${lineEnd}`);
    },
    raw(text) {
      res.write(text);
    },
    end() {
      res.end();
    },
  };
}

/** A fixed creation time (seconds) for every mock answer. */
export const MOCK_CREATED = 1_700_000_000;
