import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection closed before its request's body was read keeps dropping what its client still sends. */
export interface LingerLimits {
  /** At most this long in all. */
  maxMs: number;
  /** Closed sooner when nothing arrives for this long. */
  idleMs: number;
}

/** nginx's defaults (lingering_time 30 s, lingering_timeout 5 s). */
export const LINGER_LIMITS: LingerLimits = Object.freeze({ maxMs: 30_000, idleMs: 5_000 });

/**
 * Makes Node's close of `socket` after an answer (its `destroySoon`, once an answer that ends the connection is
 * written) a lingering close, for an answer given before the request's body was read (a refused upload, a body
 * too large, a key refused before the body).
 *
 * Closed at once, the connection would still hold the body's unread bytes, so the kernel resets it, and a client
 * still writing its body meets the reset before it reads the answer: it sees a broken connection, not the 429 or
 * 413 it was sent. Instead the answer is followed by a FIN, what the client still sends is read and dropped, and
 * the connection is closed when the body ends, when nothing arrives for `idleMs`, or after `maxMs` (as nginx's
 * lingering close does).
 */
export function lingerOnClose(socket: Socket, req: IncomingMessage, limits: LingerLimits = LINGER_LIMITS): void {
  if (Object.hasOwn(socket, 'destroySoon')) return;
  socket.destroySoon = function lingeringClose(this: Socket): void {
    delete (this as Partial<Pick<Socket, 'destroySoon'>>).destroySoon;
    if (req.complete || this.destroyed) {
      this.destroySoon();
      return;
    }
    const close = () => this.destroy();
    const deadline = setTimeout(close, limits.maxMs);
    deadline.unref();
    this.once('close', () => clearTimeout(deadline));
    this.setTimeout(limits.idleMs, close);
    this.end();
    // The rest of the body is dropped as it arrives: no reader is left on the request.
    req.once('end', close);
    req.removeAllListeners('readable');
    req.removeAllListeners('data');
    req.resume();
  };
}

/**
 * Whether `req` came on a connection an answer has already ended (a pipelined request read while a lingering close
 * drops the rest): such a request is not served, and its connection is closed now.
 */
export function arrivedAfterClose(req: IncomingMessage): boolean {
  if (!req.socket.writableEnded) return false;
  req.socket.destroy();
  return true;
}
