import { WebSocket, type RawData } from 'ws';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import type { TokenAuth } from '../auth-cache.js';
import type { Hold, ReserveTarget } from '../../accounting/ledger.js';
import type { ResolvedPrice } from '../price.js';
import type { RelayContext } from '../services.js';
import { newRequestId, settleCall, unsettledCallRecord } from '../settle.js';
import { observeRealtimeCharge } from '../../observability/relay-observer.js';
import { refusedClientEvent } from './realtime-checks.js';
import type { CallUsage } from '../usage.js';

const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
/** Both peers are pinged this often (or once per idle period if shorter); one that has not answered the previous ping is dropped. */
const HEARTBEAT_MS = 30_000;

/** What a realtime session bills against, fixed when it opens. */
export interface RealtimeBilling {
  auth: TokenAuth;
  group: string;
  model: string;
  upstreamModel: string;
  ip: string;
  channel: CachedChannel;
  usedChannels: number[];
  price: ResolvedPrice;
  target: ReserveTarget;
  /** Reserved before each response: a response is only started with this much available. */
  perResponse: number;
  hold: Hold;
  /** The journal's call for the response `hold` is reserved for (openRealtimeResponse). */
  callId: string;
  /** A session without a frame either way for this long is closed (REALTIME_IDLE_TIMEOUT). */
  idleMs: number;
}

interface RealtimeUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_token_details?: { cached_tokens?: number; audio_tokens?: number; text_tokens?: number };
  output_token_details?: { audio_tokens?: number; text_tokens?: number };
}

/** A `response.done` event's usage as billing reads it (OpenAI semantics: audio and cached tokens inside input). */
export function realtimeUsage(u: RealtimeUsage | undefined): CallUsage | undefined {
  if (!u || typeof u.input_tokens !== 'number') return undefined;
  return { promptTokens: u.input_tokens, completionTokens: u.output_tokens ?? 0, cachedTokens: u.input_token_details?.cached_tokens ?? 0, reported: true };
}

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

/**
 * Opens a response of a session in the writer's journal, billed at its reservation if it never settles; resolves
 * with its id (the request id of its log row) once the line is written.
 */
export async function openRealtimeResponse(ctx: RelayContext, b: Pick<RealtimeBilling, 'auth' | 'group' | 'model' | 'ip' | 'target' | 'perResponse'>): Promise<string> {
  const requestId = newRequestId();
  await ctx.relay.writer.begin(
    requestId,
    unsettledCallRecord(ctx, { requestId, auth: b.auth, group: b.group, model: b.model, stream: true, ip: b.ip, started: Date.now(), target: b.target, reserved: b.perResponse }),
  );
  return requestId;
}

/** A close code that may be sent on the wire (1005, 1006 and 1015 may not). */
const sendableCode = (code: number): number => (code === 1000 || (code >= 3000 && code < 5000) || (code >= 1001 && code <= 1014 && code !== 1005 && code !== 1006) ? code : 1000);

/**
 * Relays one realtime session: frames both ways with backpressure; every `response.done` is settled as one
 * call (its usage priced, the ledger charged, a consume log queued to the writer) and the next response's
 * reservation taken; a client without quota for it gets an error event and the session ends.
 */
export function runRealtimeSession(ctx: RelayContext, client: WebSocket, upstream: WebSocket, b: RealtimeBilling): void {
  let hold: Hold | undefined = b.hold;
  let callId = b.callId;
  let responseStarted = Date.now();
  let firstByteMs = 0;
  let billing = Promise.resolve();
  let closed = false;

  const bill = async (usage: CallUsage) => {
    if (!hold) return;
    const used = hold;
    hold = undefined;
    const charged = await settleCall(ctx, {
      requestId: callId,
      callId,
      auth: b.auth,
      group: b.group,
      model: b.model,
      upstreamModel: b.upstreamModel,
      stream: true,
      ip: b.ip,
      started: responseStarted,
      firstByteMs,
      channel: b.channel,
      usedChannels: b.usedChannels,
      price: b.price,
      usage,
      target: b.target,
      hold: used,
    });
    observeRealtimeCharge(charged);
    responseStarted = Date.now();
    firstByteMs = 0;
    if (closed) return;
    const next = await ctx.relay.ledger.reserve(b.target, b.perResponse);
    if (next === 'user' || next === 'token') {
      const message = next === 'user' ? 'insufficient user quota' : 'this API token has no quota left';
      if (client.readyState === WebSocket.OPEN)
        client.send(
          JSON.stringify({ type: 'error', event_id: `event_${newRequestId()}`, error: { type: 'insufficient_quota', code: 'insufficient_quota', message, param: null } }),
        );
      client.close(1008, 'quota exhausted');
      upstream.close(1000);
      return;
    }
    if (closed) {
      await ctx.relay.ledger.settle(b.target, next, 0);
      return;
    }
    callId = await openRealtimeResponse(ctx, b);
    hold = next;
  };

  const liveness = watchLiveness(client, upstream, b.idleMs);
  pipe(client, upstream, (data, isBinary) => {
    liveness.seen();
    const refusal = refusedClientEvent(data, isBinary);
    if (refusal === undefined) return true;
    if (client.readyState === WebSocket.OPEN) client.send(refusal);
    return false;
  });
  pipe(upstream, client, (data, isBinary) => {
    liveness.seen();
    if (!firstByteMs) firstByteMs = Date.now() - responseStarted;
    if (isBinary) return;
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    if (!buf.includes('"response.done"')) {
      if (buf.includes('"response.created"')) responseStarted = Date.now();
      return;
    }
    let event: { type?: string; response?: { usage?: RealtimeUsage } };
    try {
      event = JSON.parse(buf.toString('utf8')) as typeof event;
    } catch {
      return;
    }
    if (event.type !== 'response.done') return;
    const usage = realtimeUsage(event.response?.usage);
    if (usage) billing = billing.then(() => bill(usage)).catch((err: unknown) => ctx.log.error({ err }, 'realtime: settling a response failed'));
  });

  upstream.resume();

  const end = () => {
    if (closed) return;
    closed = true;
    liveness.stop();
    // Responses already done are settled first; what is still reserved goes back.
    billing = billing.then(async () => {
      if (hold) {
        await ctx.relay.ledger.settle(b.target, hold, 0);
        ctx.relay.writer.release(callId);
      }
      hold = undefined;
    });
  };
  client.on('close', (code, reason) => {
    end();
    if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING) upstream.close(sendableCode(code), reason);
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
