import type { IncomingMessage } from 'node:http';
import type { OptionsService } from '../core/options/service.js';

const firstOf = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim() || undefined;

/**
 * The caller's address. Behind a reverse proxy (TRUST_PROXY, or ReverseProxyEnabled in the settings) it is the
 * address the proxy reports: Cloudflare's CF-Connecting-IP or nginx's X-Real-IP (ReverseProxyProvider), else the
 * left-most X-Forwarded-For entry. Otherwise it is the connection's own address, whatever the headers say, so a
 * direct caller cannot choose it (token IP allow-lists, rate limits and logs read it).
 */
export function resolveClientIp(req: IncomingMessage, options: OptionsService, trustProxyEnv: boolean): string {
  const socket = req.socket.remoteAddress ?? '';
  const proxied = options.bool('ReverseProxyEnabled');
  if (!proxied && !trustProxyEnv) return socket;
  const named = proxied ? firstOf(req.headers[options.get('ReverseProxyProvider') === 'cloudflare' ? 'cf-connecting-ip' : 'x-real-ip']) : undefined;
  return named ?? firstOf(req.headers['x-forwarded-for']) ?? socket;
}

/**
 * Makes the resolved address the request's only X-Forwarded-For entry (Fastify trusts it for req.ip, the relay's
 * hot path reads it), and drops the forwarded host and protocol a direct caller may have sent: they are believed
 * only from a trusted proxy.
 */
export function normalizeForwarded(req: IncomingMessage, options: OptionsService, trustProxyEnv: boolean): void {
  const behindProxy = trustProxyEnv || options.bool('ReverseProxyEnabled');
  req.headers['x-forwarded-for'] = resolveClientIp(req, options, trustProxyEnv);
  if (!behindProxy) {
    delete req.headers['x-forwarded-proto'];
    delete req.headers['x-forwarded-host'];
  }
}
