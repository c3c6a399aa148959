import net from 'node:net';

/** A raw request: the head and the first `sent` bytes of a body of `length`; resolves with what the server did. */
export function partialUpload(port: number, head: string, length: number, sent: string, waitMs: number): Promise<{ response: string; closed: boolean; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    let closed = false;
    socket.on('data', (c) => (response += c.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ response, closed, ms: Date.now() - started });
    });
    socket.write(`${head}content-length: ${length}\r\n\r\n${sent}`);
    const timer = setTimeout(() => {
      resolve({ response, closed, ms: Date.now() - started });
      socket.destroy();
    }, waitMs);
  });
}
