import { WebSocket, type RawData } from 'ws';
import type { RelayContext } from '../pipeline/services.js';
import { newRequestId } from '../billing/settle.js';
import { refusedClientEvent } from './realtime-checks.js';
import { MAX_OPEN_UNITS, RealtimeAccount, type RealtimeBilling, type Refusal } from './realtime-billing.js';
import { meterEvent, parseFrame, type MeteredEvent } from './realtime-meter.js';

const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
/** Both peers are pinged this often (or once per idle period if shorter); one that has not answered the previous ping is dropped. */
const HEARTBEAT_MS = 30_000;

/**
 * Frames from one socket to the other; the source pauses while the destination's send buffer is full. A frame
 * `inspect` answers false for is not passed on.
 */
function pipe(from: WebSocket, to: WebSocket, inspect: (data: RawData, isBinary: boolean) => boolean | void): void {
  from.on('message', (data, isBinary) => {
    if (inspect(data, isBinary) === false) return;
    if (to.readyState !== WebSocket.OPEN) return;
    to.send(data, { binary: isBinary }, () => {
      if (from.isPaused && to.bufferedAmount < LOW_WATER) from.resume();
    });
    if (to.bufferedAmount > HIGH_WATER) from.pause();
  });
}

/** A close code that may be sent on the wire (1005, 1006 and 1015 may not). */
const sendableCode = (code: number): number =>
  code === 1000 || (code >= 3000 && code < 5000) || (code >= 1001 && code <= 1014 && code !== 1005 && code !== 1006)
    ? code
    : 1000;

/** The error event that ends a session whose balance cannot hold what comes next. */
function refusalEvent(why: Refusal): string {
  if (typeof why !== 'string')
    return JSON.stringify({
      type: 'error',
      event_id: `event_${newRequestId()}`,
      error: { type: why.type, code: why.code, message: why.message, param: null },
    });
  const message =
    why === 'user'
      ? 'insufficient user quota'
      : why === 'token'
        ? 'this API token has no quota left'
        : `more than ${MAX_OPEN_UNITS} responses and transcriptions at once`;
  const type = why === 'units' ? 'invalid_request_error' : 'insufficient_quota';
  return JSON.stringify({
    type: 'error',
    event_id: `event_${newRequestId()}`,
    error: { type, code: type === 'insufficient_quota' ? type : 'too_many_open_units', message, param: null },
  });
}

/**
 * Relays one realtime session: client frames pass on (checked by refusedClientEvent); upstream frames pass one at
 * a time through the session's account, which holds the balance ahead of each billable frame (deltas of
 * responses and input transcriptions) and counts it as delivered. A frame the balance cannot hold is not
 * delivered: the client gets an `insufficient_quota` error event and the session ends. Each response or
 * transcription is settled as one call when it ends (its usage, never less than what was delivered), or for what
 * it delivered when the session ends first; after a response the next one's reservation is taken ahead.
 */
export function runRealtimeSession(
  ctx: RelayContext,
  client: WebSocket,
  upstream: WebSocket,
  b: RealtimeBilling,
): void {
  const account = new RealtimeAccount(ctx, b);
  let closed = false;
  /** Frames waiting for the account (in order); the upstream is paused while any wait. */
  let waiting = 0;
  let queue: Promise<void> = Promise.resolve();

  const liveness = watchLiveness(client, upstream, b.idleMs);
  pipe(client, upstream, (data, isBinary) => {
    liveness.seen();
    const refusal = refusedClientEvent(data, isBinary);
    if (refusal === undefined) return true;
    if (client.readyState === WebSocket.OPEN) client.send(refusal);
    return false;
  });

  const resumeUpstream = () => {
    if (waiting === 0 && upstream.isPaused && client.bufferedAmount < LOW_WATER) upstream.resume();
  };
  const refuse = (why: Refusal) => {
    if (client.readyState === WebSocket.OPEN) client.send(refusalEvent(why));
    client.close(
      1008,
      why === 'units' ? 'too many open units' : typeof why === 'string' ? 'quota exhausted' : 'period limit reached',
    );
    upstream.close(1000);
  };
  const send = (data: RawData, isBinary: boolean) => {
    client.send(data, { binary: isBinary }, resumeUpstream);
    if (client.bufferedAmount > HIGH_WATER) upstream.pause();
  };

  /** After a frame went out: a finished unit is settled, and after a response the next one is held for. */
  const afterDelivery = async (ev: MeteredEvent) => {
    if (ev.kind !== 'done') return;
    const charged = await account.finish(ev.unit, ev.usage);
    if (ev.unitKind !== 'response' || closed || !account.needsSpare()) return;
    const spare = await account.reserveSpare(charged);
    if (spare !== true) refuse(spare);
  };

  /** One upstream frame: held for, delivered and counted, or refused; synchronous unless the account must wait. */
  const relay = (data: RawData, isBinary: boolean): Promise<void> | undefined => {
    if (client.readyState !== WebSocket.OPEN) return undefined;
    const ev = meterEvent(parseFrame(data, isBinary));
    const deliver = () => {
      if (client.readyState !== WebSocket.OPEN) return undefined;
      send(data, isBinary);
      if (!ev) return undefined;
      account.deliver(ev);
      return ev.kind === 'done' ? afterDelivery(ev) : undefined;
    };
    const admitted = ev ? account.admit(ev) : undefined;
    if (!admitted) return deliver();
    return admitted.then(async (ok) => {
      if (ok === true) return deliver();
      // The balance cannot hold it: not delivered. A unit's end still bills its usage as far as the balance goes.
      if (ev?.kind === 'done') await account.finish(ev.unit, ev.usage);
      refuse(ok);
    });
  };

  const failed = (err: unknown) => {
    ctx.log.error({ err }, 'realtime: billing a frame failed');
    client.terminate();
    upstream.terminate();
  };
  const enqueue = (work: () => Promise<void> | undefined) => {
    waiting++;
    upstream.pause();
    queue = queue
      .then(work)
      .catch(failed)
      .finally(() => {
        waiting--;
        resumeUpstream();
      });
  };
  upstream.on('message', (data, isBinary) => {
    liveness.seen();
    if (waiting > 0) return enqueue(() => relay(data, isBinary));
    try {
      const pending = relay(data, isBinary);
      if (pending) enqueue(() => pending);
    } catch (err) {
      failed(err);
    }
  });
  upstream.resume();

  const end = () => {
    if (closed) return;
    closed = true;
    liveness.stop();
    // Frames in flight first; then every unit still open is billed for what it delivered, the spare released.
    queue = queue
      .then(() => account.close())
      .catch((err: unknown) => ctx.log.error({ err }, 'realtime: settling a session failed'));
  };
  client.on('close', (code, reason) => {
    end();
    if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING)
      upstream.close(sendableCode(code), reason);
  });
  upstream.on('close', (code, reason) => {
    end();
    if (client.readyState === WebSocket.OPEN) client.close(sendableCode(code), reason);
  });
  client.on('error', () => upstream.terminate());
  upstream.on('error', () => client.terminate());
}

/**
 * Ends sessions nobody is using: no frame either way for `idleMs` closes both sockets (1000, "idle timeout"),
 * and a peer that does not answer a ping within HEARTBEAT_MS (a dead connection) is terminated. Either way the
 * session's close handlers release what it still holds reserved.
 */
function watchLiveness(client: WebSocket, upstream: WebSocket, idleMs: number): { seen: () => void; stop: () => void } {
  let lastFrame = Date.now();
  const alive = new Map<WebSocket, boolean>([
    [client, true],
    [upstream, true],
  ]);
  for (const ws of alive.keys()) ws.on('pong', () => alive.set(ws, true));
  const idle = setInterval(
    () => {
      if (Date.now() - lastFrame < idleMs) return;
      client.close(1000, 'idle timeout');
      upstream.close(1000, 'idle timeout');
    },
    Math.min(idleMs, HEARTBEAT_MS) / 2,
  );
  const heartbeat = setInterval(
    () => {
      for (const [ws, answered] of alive) {
        if (ws.readyState !== WebSocket.OPEN) continue;
        if (!answered) {
          ws.terminate();
          continue;
        }
        alive.set(ws, false);
        ws.ping();
      }
    },
    Math.min(HEARTBEAT_MS, idleMs),
  );
  idle.unref();
  heartbeat.unref();
  return {
    seen: () => {
      lastFrame = Date.now();
    },
    stop: () => {
      clearInterval(idle);
      clearInterval(heartbeat);
    },
  };
}
