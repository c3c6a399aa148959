// Outbound requests made for users go through this undici interceptor: the host is resolved once, every
// address is checked, and the connection is made to the checked address (no second lookup to rebind).
import dns from 'node:dns';
import net from 'node:net';
import { getGlobalDispatcher, type Dispatcher } from 'undici';
import { hostAddress } from './address-class.js';
import { ErrorCode } from '@tollway/shared';
import { OutboundBlockedError, type OutboundPolicy } from './outbound-guard.js';

/** Every address a host name resolves to. */
export type ResolveAll = (host: string) => Promise<string[]>;

export const systemResolve: ResolveAll = async (host) =>
  (await dns.promises.lookup(host, { all: true })).map((a) => a.address);

/** Resolves `host` and checks every address; returns the one to connect to. */
export async function resolveChecked(
  policy: OutboundPolicy,
  host: string,
  resolve: ResolveAll = systemResolve,
): Promise<string> {
  const addresses = await resolve(host);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  for (const address of addresses) policy.checkAddress(address, host);
  return addresses[0]!;
}

const withHost = (
  headers: Dispatcher.DispatchOptions['headers'],
  host: string,
): Dispatcher.DispatchOptions['headers'] => {
  if (headers == null) return { host };
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === 'host') return headers;
    return ['host', host, ...(headers as string[])];
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    const flat: string[] = [];
    for (const [k, v] of headers as Iterable<[string, string]>) flat.push(k, v);
    return withHost(flat, host);
  }
  const record = headers as Record<string, string | string[] | undefined>;
  return Object.keys(record).some((k) => k.toLowerCase() === 'host') ? record : { host, ...record };
};

/**
 * An undici interceptor enforcing `policy()` on every request: the URL is checked (scheme, port, domain,
 * literal address), a domain is resolved once and all its addresses checked, and the request is sent to the
 * first of them (TLS still verifies the certificate against the domain). Refusals are OutboundBlockedError.
 */
export function outboundGuard(
  policy: () => OutboundPolicy,
  resolve: ResolveAll = systemResolve,
): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const route = async (): Promise<Dispatcher.DispatchOptions> => {
      const rules = policy();
      const origin = new URL(String(opts.origin));
      rules.checkUrl(origin);
      if (!rules.enabled || hostAddress(origin.hostname) !== undefined) return opts;
      const address = await resolveChecked(rules, origin.hostname, resolve);
      const pinned = new URL(origin.href);
      pinned.hostname = net.isIPv6(address) ? `[${address}]` : address;
      return {
        ...opts,
        origin: pinned.origin,
        headers: withHost(opts.headers, origin.host),
        ...(origin.protocol === 'https:' ? { servername: origin.hostname } : {}),
      } as Dispatcher.DispatchOptions;
    };
    const fail = (err: unknown) => handler.onResponseError?.(null as never, err as Error);
    route().then((routed) => {
      try {
        dispatch(routed, handler);
      } catch (err) {
        fail(err);
      }
    }, fail);
    return true;
  };
}

/**
 * The dispatcher for a request made on a user's behalf: the process's dispatcher behind the guard. Redirects
 * are never followed (undici's request does not), so each hop would need a new guarded request.
 */
export function guardedDispatcher(policy: () => OutboundPolicy, resolve?: ResolveAll): Dispatcher {
  return getGlobalDispatcher().compose(outboundGuard(policy, resolve));
}

/**
 * Checks a URL a user wants the server to call later (a webhook at save time). A domain that does not resolve
 * now is accepted (it is checked again on every call); a refused one is an OutboundBlockedError.
 */
export async function checkUserUrl(
  policy: OutboundPolicy,
  raw: string,
  resolve: ResolveAll = systemResolve,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundBlockedError('not a valid URL', ErrorCode.OutboundUrlInvalid);
  }
  policy.checkUrl(url);
  if (!policy.enabled || hostAddress(url.hostname) !== undefined) return;
  try {
    await resolveChecked(policy, url.hostname, resolve);
  } catch (err) {
    if (err instanceof OutboundBlockedError) throw err;
  }
}
