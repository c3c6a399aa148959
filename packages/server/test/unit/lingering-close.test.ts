import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayResponseClass } from '../../src/lib/gateway-response.js';
import { arrivedAfterClose, type LingerLimits } from '../../src/lib/lingering-close.js';

const MB = 1024 * 1024;
const ANNOUNCED = 256 * MB;
const LIMITS: LingerLimits = { maxMs: 2_000, idleMs: 600 };
/** For the body-end test: an idle close would come ten seconds after the last byte. */
const SLOW_IDLE_LIMITS: LingerLimits = { maxMs: 15_000, idleMs: 10_000 };
const REFUSAL = JSON.stringify({ error: { message: 'too many uploads in flight', code: 'upload_limit_exceeded' } });

/**
 * Answers as the upload refusal does: reads the first chunk of the body (as the spool's reader, without destroying
 * the request), then answers 429 with `connection: close`, the rest of the body unread. `/served` answers 200: a
 * pipelined request after a refusal must not reach it.
 */
function handler(served: string[]) {
  return async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (arrivedAfterClose(req)) return;
    served.push(req.url!);
    if (req.url === '/served') {
      res.end('ok');
      return;
    }
    for await (const chunk of req.iterator({ destroyOnReturn: false })) if (chunk) break;
    res.writeHead(429, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(REFUSAL),
      connection: 'close',
    });
    res.end(REFUSAL);
  };
}

/**
 * A client writing a large body as fast as the connection takes it, until it has the whole answer. Half-open (it
 * may keep writing after the server's FIN) unless `halfOpen` is false, as Node's clients are by default.
 */
class Uploader {
  readonly socket: net.Socket;
  text = '';
  error: string | undefined;
  /** When the server's FIN arrived. */
  endedAt = 0;
  /** The client's port (kept: a destroyed socket no longer says it). */
  localPort = 0;

  constructor(port: number, head: string, halfOpen = true) {
    this.socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: halfOpen });
    this.socket.on('data', (c: Buffer) => (this.text += c.toString('latin1')));
    this.socket.on('error', (e: NodeJS.ErrnoException) => (this.error ??= e.code ?? e.message));
    this.socket.on('end', () => (this.endedAt = Date.now()));
    this.socket.on('connect', () => (this.localPort = this.socket.localPort!));
    this.socket.write(head);
  }

  get answered(): boolean {
    const at = this.text.indexOf('\r\n\r\n');
    return at >= 0 && this.text.length - at - 4 >= Buffer.byteLength(REFUSAL);
  }

  /** Writes `chunk` until the answer is complete or the connection is gone. */
  async pour(chunk: Buffer): Promise<void> {
    while (!this.answered && !this.socket.destroyed && this.socket.writable) {
      if (!this.socket.write(chunk)) await new Promise((r) => this.socket.once('drain', r).once('close', r));
    }
  }

  status(): number {
    return Number(/^HTTP\/1\.1 (\d+)/.exec(this.text)?.[1] ?? 0);
  }
}

const uploadHead = (extra = '') =>
  `POST /upload HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/octet-stream\r\ncontent-length: ${ANNOUNCED}\r\n${extra}\r\n`;

/** A server answering as `handler` does, its connections' close times kept by the client's port. */
async function startServer(limits: LingerLimits, served: string[]) {
  const serverClosed = new Map<number, Promise<number>>();
  const server = http.createServer({ ServerResponse: gatewayResponseClass({}, limits) }, handler(served));
  server.on('connection', (s: net.Socket) =>
    serverClosed.set(s.remotePort!, new Promise((r) => s.once('close', () => r(Date.now())))),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    /** When the server closed `c`'s connection. */
    closedByServer: (c: Uploader) => serverClosed.get(c.localPort)!,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('lingering close: an answer given before the body was read reaches a client still sending it', () => {
  const served: string[] = [];
  let stop: () => Promise<void>;
  let port = 0;
  let closedByServer: (c: Uploader) => Promise<number>;

  beforeAll(async () => {
    ({ port, closedByServer, stop } = await startServer(LIMITS, served));
  });
  afterAll(() => stop());

  it('every client writing at full speed reads its whole 429, then the server’s FIN, with no reset', async () => {
    const chunk = Buffer.alloc(MB, 'a');
    const clients = Array.from({ length: 12 }, (_, i) => new Uploader(port, uploadHead(), i % 2 === 0));
    await Promise.all(clients.map((c) => c.pour(chunk)));
    for (const c of clients) {
      expect(c.error).toBeUndefined();
      expect(c.status()).toBe(429);
      expect(JSON.parse(c.text.slice(c.text.indexOf('\r\n\r\n') + 4))).toEqual(JSON.parse(REFUSAL));
      expect(c.text.toLowerCase()).toContain('\r\nconnection: close\r\n');
    }
    await Promise.all(clients.map(closedByServer));
    expect(clients.every((c) => c.endedAt > 0)).toBe(true);
    for (const c of clients) c.socket.destroy();
  });

  it('a client that stops sending is closed once it has been idle for the idle limit', async () => {
    const c = new Uploader(port, uploadHead());
    await c.pour(Buffer.alloc(64 * 1024, 'b'));
    const answeredAt = Date.now();
    const lingered = (await closedByServer(c)) - answeredAt;
    expect(lingered).toBeGreaterThanOrEqual(LIMITS.idleMs - 100);
    expect(lingered).toBeLessThan(LIMITS.maxMs);
    expect(c.error).toBeUndefined();
    c.socket.destroy();
  });

  it('a client that never stops sending is closed at the limit in all', async () => {
    const c = new Uploader(port, uploadHead());
    const small = Buffer.alloc(1024, 'c');
    await c.pour(small);
    const answeredAt = Date.now();
    // A little every 100 ms (never idle for the idle limit), far less than the body announced.
    const trickle = setInterval(() => c.socket.writable && c.socket.write(small), 100);
    const lingered = (await closedByServer(c)) - answeredAt;
    clearInterval(trickle);
    expect(lingered).toBeGreaterThanOrEqual(LIMITS.maxMs - 100);
    // Without the limit in all it would never close (the trickle keeps it from idling): the test would time out.
    expect(lingered).toBeLessThan(2 * LIMITS.maxMs);
    c.socket.destroy();
  });

  /**
   * Answers a 32 MB upload with the refusal, then sends the rest of its body (and `after`, in the same write).
   * Its own server, whose idle limit is far longer than moving the body takes even on a loaded machine: a close
   * well before it is the body's end (or the request after it), not the idle limit.
   */
  async function refuseThenSendRest(after: string) {
    const long = await startServer(SLOW_IDLE_LIMITS, served);
    const total = 32 * MB;
    const head = `POST /upload HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${total}\r\n\r\n`;
    const c = new Uploader(long.port, head);
    await c.pour(Buffer.alloc(64 * 1024, 'd'));
    expect(c.status()).toBe(429);
    served.length = 0;
    const rest = total - (c.socket.bytesWritten - Buffer.byteLength(head));
    expect(rest).toBeGreaterThan(0);
    const started = Date.now();
    c.socket.write(Buffer.concat([Buffer.alloc(rest, 'e'), Buffer.from(after)]));
    const closedAfter = (await long.closedByServer(c)) - started;
    c.socket.destroy();
    await long.stop();
    return { c, closedAfter };
  }

  it('the connection closes as soon as the rest of the body has arrived', async () => {
    const { closedAfter } = await refuseThenSendRest('');
    expect(closedAfter).toBeLessThan(SLOW_IDLE_LIMITS.idleMs / 2);
  }, 20_000);

  it('a request pipelined after the refused body is not served', async () => {
    const { c, closedAfter } = await refuseThenSendRest('GET /served HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    expect(closedAfter).toBeLessThan(SLOW_IDLE_LIMITS.idleMs / 2);
    expect(served).toEqual([]);
    expect(c.text).not.toContain('\r\n\r\nok');
  }, 20_000);

  it('a connection whose answer keeps it open is not touched: the next request on it is served', async () => {
    served.length = 0;
    const c = new Uploader(port, 'GET /served HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n', false);
    await new Promise((r) => setTimeout(r, 50));
    const clientClosed = new Promise((r) => c.socket.once('close', r));
    c.socket.write('GET /served HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
    await Promise.all([closedByServer(c), clientClosed]);
    expect(served).toEqual(['/served', '/served']);
    expect(c.text.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
  });
});
