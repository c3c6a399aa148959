import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RelayRequest } from '../entry/request.js';
import { channelTypeById } from '@tollway/shared';
import { WebSocket, WebSocketServer } from 'ws';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { admitModel, nextChannel, reserveQuota, type ChannelChoice } from '../pipeline/admit.js';
import { tagCall } from '../entry/call-tags.js';
import { authenticate } from '../entry/authenticate.js';
import { RelayError, relayErrors } from '../pipeline/errors.js';
import { invalidParam, MAX_MODEL_NAME } from '../entry/validate.js';
import { attemptFailure, type AttemptFailure } from '../upstream/message.js';
import {
  GIVE_UP,
  logUnserved,
  refundHold,
  SERVED,
  tryChannels,
  UNUSABLE,
  upstreamFailed,
  type AttemptsState,
  type ChannelAttempts,
} from '../pipeline/lifecycle.js';
import { openAIChat } from '../providers/openai/chat.js';
import { baseUrlOf } from '../providers/base-url.js';
import { countSuccess } from '../limits/request-limits.js';
import type { RelayContext } from '../pipeline/services.js';
import { newRequestId } from '../billing/settle.js';
import { servedGroup } from '../pipeline/auto-group.js';
import { holdStep, openRealtimeResponse, type RealtimeBilling } from './realtime-billing.js';
import { runRealtimeSession } from './realtime-session.js';
import { resolveClientIp } from '../../core/client-ip.js';
import { withHeaderOverride } from '../upstream/header-override.js';

const KEY_PROTOCOL = 'openai-insecure-api-key.';
const BETA_PROTOCOL = 'openai-beta.';
const CONNECT_TIMEOUT_MS = 15_000;

/** Answers a refused upgrade with an HTTP status and an OpenAI-shaped error, then closes the socket. */
function refuse(socket: Duplex, e: RelayError): void {
  const body = JSON.stringify(openAIChat.errorBody(e.status, e.message, e.type, e.code));
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The subprotocols a browser client offered (`realtime`, the key, the beta flag). */
const protocolsOf = (req: IncomingMessage): string[] =>
  String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

/** The request as authentication reads it: a key from the header, `?key=`, or the browser's key subprotocol. */
function authView(ctx: RelayContext, req: IncomingMessage, url: URL): RelayRequest {
  const headers = { ...req.headers };
  const fromProtocol = protocolsOf(req).find((p) => p.startsWith(KEY_PROTOCOL));
  if (!headers.authorization && fromProtocol)
    headers.authorization = `Bearer ${fromProtocol.slice(KEY_PROTOCOL.length)}`;
  const ip = resolveClientIp(req, ctx.options, ctx.config.trustProxy).replace(/^::ffff:/, '');
  return { headers, url: req.url ?? '', query: Object.fromEntries(url.searchParams), ip, body: undefined, raw: req };
}

/**
 * The upstream WebSocket URL and headers: OpenAI `{base}/v1/realtime?model=`; Azure's GA `{base}/openai/v1/realtime?model=`
 * with the deployment name, or, when the channel's API version (`other`) is a preview one, the preview
 * `{base}/openai/realtime?api-version=…&deployment=`.
 */
function upstreamTarget(
  ch: CachedChannel,
  key: string,
  model: string,
  req: IncomingMessage,
): { url: string; headers: Record<string, string> } | undefined {
  const format = channelTypeById.get(ch.type)?.format;
  const base = baseUrlOf(ch).replace(/^http/, 'ws');
  const beta =
    req.headers['openai-beta'] ??
    (protocolsOf(req).find((p) => p.startsWith(BETA_PROTOCOL)) ? 'realtime=v1' : undefined);
  const extra: Record<string, string> = beta ? { 'openai-beta': String(beta) } : {};
  if (format === 'azure') {
    const deployment = model.replace(/\./g, '');
    const version = ch.other.trim();
    const preview = version.endsWith('-preview');
    const url = new URL(preview ? `${base}/openai/realtime` : `${base}/openai/v1/realtime`);
    if (preview) {
      url.searchParams.set('api-version', version);
      url.searchParams.set('deployment', deployment);
    } else url.searchParams.set('model', deployment);
    return { url: url.toString(), headers: { 'api-key': key, ...extra } };
  }
  if (format !== 'openai') return undefined;
  const url = new URL(`${base}/v1/realtime`);
  url.searchParams.set('model', model);
  return {
    url: url.toString(),
    headers: {
      authorization: `Bearer ${key}`,
      ...(ch.organization ? { 'openai-organization': ch.organization } : {}),
      ...extra,
    },
  };
}

/** Opens the upstream socket; resolves with it open, or with the failure (status 0: unreachable). */
function connectUpstream(
  url: string,
  headers: Record<string, string>,
): Promise<WebSocket | { status: number; message: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: CONNECT_TIMEOUT_MS, perMessageDeflate: false });
    ws.once('open', () => {
      // Held until the session's handlers are attached (OpenAI sends session.created at once).
      ws.pause();
      resolve(ws);
    });
    ws.once('unexpected-response', (request, response) => {
      let text = '';
      response.on('data', (c: Buffer) => (text += c.toString('utf8').slice(0, 4096)));
      response.on('end', () => {
        let message = text.trim() || `upstream answered HTTP ${response.statusCode}`;
        try {
          message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
        } catch {
          /* not JSON */
        }
        resolve({ status: response.statusCode ?? 502, message });
      });
      request.destroy();
    });
    ws.once('error', (err) => resolve({ status: 0, message: `upstream unreachable: ${err.message}` }));
  });
}

/** Admission, channel choice with retries, then the session: the generic relay stages over a WebSocket. */
async function openSession(
  ctx: RelayContext,
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: URL,
): Promise<void> {
  const view = authView(ctx, req, url);
  const identified = await authenticate(view, ctx.relay.tokens);
  // A session's spend tags come from its upgrade request's x-tollway-tags header.
  const auth = tagCall(identified.auth, req.headers);
  const model = (url.searchParams.get('model') ?? url.searchParams.get('deployment') ?? '').trim();
  if (!model) throw relayErrors.noModel();
  if (model.length > MAX_MODEL_NAME) throw invalidParam('model', `model must be at most ${MAX_MODEL_NAME} characters`);
  // An `auto` token's session runs in the first auto group serving the model (auto-group.ts).
  const group = servedGroup(ctx, auth, identified.group, model);
  const { price, limits } = await admitModel(ctx, auth, group, model, 0, 0, 'unserved-or-disabled');
  // Each response is reserved for before it runs (its per-call price, or the pre-consumed quota for ratios); the
  // session's account grows the hold ahead of what a response delivers (realtime-billing.ts).
  const perResponse = holdStep(ctx, price);
  const { target, hold } = await reserveQuota(ctx, auth, perResponse);
  let callId: string | undefined;
  try {
    callId = await openRealtimeResponse(ctx, { auth, group, model, ip: view.ip, target, perResponse });
    await connectSession(ctx, {
      wss,
      req,
      socket,
      head,
      view,
      auth,
      group,
      model,
      price,
      limits,
      target,
      perResponse,
      hold,
      callId,
      tried: new Set<number>(),
      usedChannels: [],
      last: undefined,
    });
  } catch (err) {
    await refundHold(ctx, target, hold, callId);
    throw err;
  }
}

/** A session admitted and held for, on its way to an upstream that accepts it. */
interface Connecting extends AttemptsState<AttemptFailure> {
  wss: WebSocketServer;
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  view: ReturnType<typeof authView>;
  auth: RealtimeBilling['auth'];
  group: string;
  model: string;
  price: RealtimeBilling['price'];
  limits: Awaited<ReturnType<typeof admitModel>>['limits'];
  target: RealtimeBilling['target'];
  perResponse: number;
  hold: RealtimeBilling['hold'];
  callId: string;
}

/** Channel choice with retries; the session runs once an upstream accepts, else the last failure is thrown. */
async function connectSession(ctx: RelayContext, s: Connecting): Promise<void> {
  const started = Date.now();
  const settings = ctx.relay.settings.get();
  if (await tryChannels(ctx, REALTIME_ATTEMPTS, s, settings.retry)) return;
  const call = {
    requestId: newRequestId(),
    auth: s.auth,
    group: s.group,
    model: s.model,
    stream: true,
    ip: s.view.ip,
    started,
  };
  const shown = logUnserved(ctx, call, s, settings.hideUpstreamError, 'realtime: upstream failed');
  const status = s.last!.status;
  throw new RelayError(status >= 400 ? status : 502, shown, 'upstream_error', 'upstream_error');
}

/** The realtime surface's part of the channel loop: an upstream socket opened, then the session handed over. */
const REALTIME_ATTEMPTS: ChannelAttempts<Connecting> = {
  stopped: (s) => s.socket.destroyed,
  next: (ctx, s, attempt) => nextChannel(ctx, s.group, s.model, s.tried, attempt),
  attempt: connectTo,
};

/** One attempt: the upstream socket opened on the channel, then the client's upgrade answered and the session run. */
async function connectTo(ctx: RelayContext, s: Connecting, choice: ChannelChoice): Promise<number> {
  const { ch, keyIndex, mapped } = choice;
  const t =
    keyIndex === undefined || 'error' in mapped
      ? undefined
      : upstreamTarget(ch, ch.keys[keyIndex]!, mapped.upstream, s.req);
  if (keyIndex === undefined || 'error' in mapped || !t) {
    const message =
      'error' in mapped
        ? mapped.error
        : keyIndex === undefined
          ? 'channel has no usable key'
          : `channel type ${ch.type} does not serve realtime`;
    s.last = attemptFailure(501, message, ch);
    return UNUSABLE;
  }
  const upstream = await connectUpstream(t.url, withHeaderOverride(t.headers, ch, ch.keys[keyIndex]!, s.req.headers));
  if (!(upstream instanceof WebSocket)) return upstreamFailed(ctx, s, choice, upstream.status, upstream.message);
  if (s.socket.destroyed) {
    upstream.close(1000);
    return GIVE_UP;
  }
  countSuccess(ctx.counters, s.limits);
  s.wss.handleUpgrade(s.req, s.socket, s.head, (client) => {
    runRealtimeSession(ctx, client, upstream, {
      auth: s.auth,
      group: s.group,
      model: s.model,
      upstreamModel: mapped.model,
      ip: s.view.ip,
      channel: ch,
      usedChannels: s.usedChannels,
      price: s.price,
      target: s.target,
      perResponse: s.perResponse,
      hold: s.hold,
      callId: s.callId,
      idleMs: ctx.config.realtimeIdleTimeout * 1000,
    });
  });
  return SERVED;
}

/**
 * GET /v1/realtime as a WebSocket relay for OpenAI and Azure channels, on the Node server's 'upgrade' event.
 * The sk- token comes in Authorization or in the `openai-insecure-api-key.` subprotocol browsers send.
 * Returns what ends every open session (server shutdown: close code 1001).
 */
export function installRealtime(server: Server, ctx: RelayContext): () => void {
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 32 * 1024 * 1024,
    // Never echo the key: pick `realtime` when offered, else the first other protocol.
    handleProtocols: (protocols) =>
      protocols.has('realtime') ? 'realtime' : ([...protocols].find((p) => !p.startsWith(KEY_PROTOCOL)) ?? false),
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname !== '/v1/realtime') {
      // Nobody else takes upgrades: say so instead of leaving the socket open.
      if (server.listenerCount('upgrade') === 1)
        refuse(socket, new RelayError(404, `no WebSocket endpoint at ${url.pathname}`, 'invalid_request_error'));
      return;
    }
    socket.on('error', () => socket.destroy());
    openSession(ctx, wss, req, socket, head, url).catch((err: unknown) => {
      if (socket.destroyed) return;
      if (err instanceof RelayError) return refuse(socket, err);
      ctx.log.error({ err }, 'realtime: upgrade failed');
      refuse(
        socket,
        new RelayError(500, 'internal server error, contact the administrator', 'tollway_error', 'internal_error'),
      );
    });
  });
  return () => {
    for (const client of wss.clients) {
      client.close(1001, 'server shutting down');
      setTimeout(() => client.terminate(), 1000).unref();
    }
  };
}
