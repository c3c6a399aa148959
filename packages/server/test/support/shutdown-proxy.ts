import net from 'node:net';

export interface FreezableProxy {
  port: number;
  /** From now on nothing passes either way and new connections get no answer; connections stay open. */
  freeze(): void;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 to `target` that can be frozen: the database behind it then hangs, never fails. */
export async function startFreezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  const sockets = new Set<net.Socket>();
  let frozen = false;
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (frozen) return;
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze() {
      frozen = true;
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
