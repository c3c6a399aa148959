import net from 'node:net';

/** A raw request: the head and the first `sent` bytes of a body of `length`; resolves with what the server did. */
export function partialUpload(
  port: number,
  head: string,
  length: number,
  sent: string,
  waitMs: number,
): Promise<{ response: string; closed: boolean; ms: number }> {
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

/**
 * A raw request whose `body` (ASCII) is sent `chunk` bytes every `everyMs` after `head` (which ends with its other
 * headers); resolves when the server closes the connection or answers in full, or after `giveUpMs`.
 */
export function trickleUpload(
  port: number,
  head: string,
  body: string,
  chunk: number,
  everyMs: number,
  giveUpMs: number,
): Promise<{ response: string; closed: boolean; ms: number; sent: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    let sent = 0;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(drip);
      clearTimeout(timer);
      resolve({ response, closed, ms: Date.now() - started, sent });
      socket.destroy();
    };
    socket.on('data', (c) => {
      response += c.toString();
      // A whole answer on a connection kept alive: done.
      const end = response.indexOf('\r\n\r\n');
      if (end === -1) return;
      // The server closes the connection after this answer: wait for that.
      if (/\r\nconnection: *close/i.test(response.slice(0, end))) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(response.slice(0, end));
      const body = response.slice(end + 4);
      if (length ? Buffer.byteLength(body) >= Number(length[1]) : body.endsWith('0\r\n\r\n')) finish(false);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    socket.write(`${head}content-length: ${body.length}\r\n\r\n`);
    const drip = setInterval(() => {
      if (!socket.writable || sent >= body.length) return;
      socket.write(body.slice(sent, sent + chunk));
      sent = Math.min(body.length, sent + chunk);
    }, everyMs);
    const timer = setTimeout(() => finish(false), giveUpMs);
  });
}
