import type { IncomingMessage } from 'node:http';
import type { OptionsService } from './options/service.js';
import { forwardedForEntries, plainAddress, TrustedProxies } from '../lib/trusted-proxies.js';

const firstOf = (v: string | string[] | undefined): string | undefined =>
  (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim() || undefined;

/**
 * The proxies believed for this request: TRUST_PROXY's when set; else, while the settings' ReverseProxyEnabled is
 * on, a proxy on this host or a private network (TrustedProxies.localNetworks); else none.
 */
function proxiesFor(options: OptionsService, trustProxyEnv: TrustedProxies): TrustedProxies {
  if (trustProxyEnv.enabled) return trustProxyEnv;
  return options.bool('ReverseProxyEnabled') ? TrustedProxies.localNetworks : TrustedProxies.off;
}

/**
 * The caller's address. Forwarding headers are believed only from a trusted proxy (see proxiesFor): then it is
 * the address the proxy reports, Cloudflare's CF-Connecting-IP or nginx's X-Real-IP (ReverseProxyEnabled, by
 * ReverseProxyProvider), else the right-most X-Forwarded-For entry that no trusted proxy wrote
 * (TrustedProxies.clientOf). Otherwise it is the connection's own address, whatever the headers say, so a
 * caller cannot choose it (token IP allow-lists, rate limits and logs read it).
 */
export function resolveClientIp(req: IncomingMessage, options: OptionsService, trustProxyEnv: TrustedProxies): string {
  const socket = req.socket.remoteAddress ?? '';
  const proxies = proxiesFor(options, trustProxyEnv);
  if (!proxies.trustsPeer(socket)) return socket;
  if (options.bool('ReverseProxyEnabled')) {
    const named = firstOf(
      req.headers[options.get('ReverseProxyProvider') === 'cloudflare' ? 'cf-connecting-ip' : 'x-real-ip'],
    );
    const address = named === undefined ? undefined : plainAddress(named);
    if (address !== undefined) return address;
  }
  return proxies.clientOf(socket, forwardedForEntries(req.headers['x-forwarded-for']));
}

/**
 * Makes the resolved address the request's only X-Forwarded-For entry (Fastify trusts it for req.ip, the relay's
 * hot path reads it), and drops the forwarded host and protocol unless the connection comes from a trusted proxy.
 */
export function normalizeForwarded(req: IncomingMessage, options: OptionsService, trustProxyEnv: TrustedProxies): void {
  const fromProxy = proxiesFor(options, trustProxyEnv).trustsPeer(req.socket.remoteAddress ?? '');
  req.headers['x-forwarded-for'] = resolveClientIp(req, options, trustProxyEnv);
  // Deleted only when present: a delete is a runtime call even for a header that is not there (most requests).
  if (!fromProxy) {
    if (req.headers['x-forwarded-proto'] !== undefined) delete req.headers['x-forwarded-proto'];
    if (req.headers['x-forwarded-host'] !== undefined) delete req.headers['x-forwarded-host'];
  }
}
