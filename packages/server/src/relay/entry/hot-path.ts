import type { IncomingMessage, ServerResponse } from 'node:http';
import { RelayError } from '../pipeline/errors.js';
import type { RelayRequest } from './request.js';
import { authenticate } from './authenticate.js';
import { relayFailure, writeRelayError } from '../pipeline/respond.js';
import { jsonRelayRoutes, serveRelayCall, type JsonRelayRoute } from './routes.js';
import type { RelayContext } from '../pipeline/services.js';
import { observeRelayCall, observing } from '../../observability/relay-observer.js';

export interface HotPathOptions {
  bodyLimit: number;
}

/** The route for a POST path: an exact entry, or the longest `/*` prefix that covers it. */
function routeTable(routes: JsonRelayRoute[]): (path: string) => JsonRelayRoute | undefined {
  const exact = new Map<string, JsonRelayRoute>();
  const prefixes: [string, JsonRelayRoute][] = [];
  for (const r of routes) {
    if (r.url.endsWith('/*')) prefixes.push([r.url.slice(0, -1), r]);
    else exact.set(r.url, r);
  }
  prefixes.sort((a, b) => b[0].length - a[0].length);
  return (path) => exact.get(path) ?? prefixes.find(([p]) => path.startsWith(p) && path.length > p.length)?.[1];
}

/** Reads a body up to `limit` bytes into one Buffer; over the limit, `tooLarge` answers instead. */
function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  tooLarge: () => void,
  done: (body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (c: Buffer) => {
    size += c.length;
    if (size <= limit) chunks.push(c);
    else if (!res.headersSent) {
      req.off('data', onData);
      tooLarge();
    }
  };
  req.on('data', onData);
  req.once('end', () => {
    if (size <= limit) done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
}

/** The client address the server factory resolved into X-Forwarded-For (normalizeForwarded), as Fastify's req.ip. */
function clientIp(req: IncomingMessage): string {
  const fwd = req.headers['x-forwarded-for'];
  return (Array.isArray(fwd) ? fwd[0] : fwd) || (req.socket.remoteAddress ?? '');
}

/**
 * The relay's JSON endpoints served straight from node:http, ahead of Fastify's router, hooks and reply
 * objects (the same handlers, routes and error shapes; everything else goes on to Fastify). Returns false when
 * the request is not one of them.
 */
export function hotPathEntry(
  ctx: RelayContext,
  opts: HotPathOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const find = routeTable(jsonRelayRoutes);
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const route = find(q === -1 ? url : url.slice(0, q));
    if (!route) return false;
    const tooLarge = () => {
      res.setHeader('connection', 'close');
      writeRelayError(res, new RelayError(413, 'request body is too large', 'invalid_request_error'), route.format);
      req.resume();
    };
    if (Number(req.headers['content-length'] ?? 0) > opts.bodyLimit) {
      tooLarge();
      return true;
    }
    const rr: RelayRequest = {
      headers: req.headers,
      url,
      ip: clientIp(req),
      query: q === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1))),
      body: undefined,
      raw: req,
    };
    // Observed from the key check on (the call's first stage).
    const obs = observing.on ? observeRelayCall(route.url, req.headers, res) : undefined;
    // The key is checked from the headers before any of the body is read: a bad key costs no upload.
    authenticate(rr, ctx.relay.tokens).then(
      (who) => {
        obs?.authenticated();
        readBody(req, res, opts.bodyLimit, obs ? () => (tooLarge(), obs.end()) : tooLarge, (body) => {
          rr.body = body;
          void serveRelayCall(ctx, route, rr, res, who);
        });
      },
      (err: unknown) => {
        if (!req.complete) res.setHeader('connection', 'close');
        writeRelayError(res, relayFailure(err, ctx.log), route.format);
        obs?.end();
      },
    );
    return true;
  };
}
