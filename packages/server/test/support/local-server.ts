import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Drops open connections (after `beforeClose`) and resolves once the server has stopped. */
  close(): Promise<void>;
}

/** Starts a mock's HTTP server on a free port of 127.0.0.1. */
export async function listenLocally(server: http.Server, beforeClose?: () => void): Promise<LocalServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        beforeClose?.();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Starts a mock whose every request is read whole and handed to `route` with its body; fills in the mock's `url`
 * and `close`.
 */
export async function serveMock<M extends { url: string; close(): Promise<void> }>(
  mock: M,
  route: (req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) => unknown,
): Promise<M> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks)));
  });
  const s = await listenLocally(server);
  mock.url = s.url;
  mock.close = s.close;
  return mock;
}
