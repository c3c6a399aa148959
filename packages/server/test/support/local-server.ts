import type http from 'node:http';
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
