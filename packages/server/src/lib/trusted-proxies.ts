import net from 'node:net';

/** Where a reverse proxy in front of the server usually connects from: loopback and private networks. */
const LOCAL_NETWORKS = ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '::1/128', 'fc00::/7'];

/** An address without an IPv4-mapped prefix, brackets or port; undefined when what is left is no IP address. */
export function plainAddress(raw: string): string | undefined {
  let a = raw.trim();
  if (a.startsWith('[')) a = a.slice(1, a.indexOf(']') === -1 ? undefined : a.indexOf(']'));
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  if (a.toLowerCase().startsWith('::ffff:') && net.isIPv4(a.slice(7))) a = a.slice(7);
  return net.isIP(a) ? a : undefined;
}

function blockListOf(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [addr, bits] = entry.split('/') as [string, string | undefined];
    const type = net.isIPv6(addr) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return list;
}

const contains = (list: net.BlockList, address: string) => list.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');

/**
 * Which connections are reverse proxies whose X-Forwarded-For entries the server believes (TRUST_PROXY):
 * - off (unset, `false`, `0`): none; the client is the connection's address;
 * - a hop count `n` (`true` is 1, for compatibility): the connection and the n-1 entries to the right of
 *   X-Forwarded-For are proxies; the client is the entry just left of them;
 * - a list of addresses and CIDR ranges: the connection must come from one; X-Forwarded-For is walked from the
 *   right, skipping entries in the list, and the client is the first entry that is not one.
 * Either way the client is the right-most entry no trusted proxy wrote, never the left-most (which whoever
 * called the first proxy chose).
 */
export class TrustedProxies {
  private constructor(
    readonly mode: 'off' | 'hops' | 'list',
    readonly hops: number,
    private readonly list: net.BlockList | undefined,
  ) {}

  static readonly off = new TrustedProxies('off', 0, undefined);
  /** What ReverseProxyEnabled trusts while TRUST_PROXY is off: a proxy on this host or a private network. */
  static readonly localNetworks = new TrustedProxies('list', 0, blockListOf(LOCAL_NETWORKS));

  /** Parses TRUST_PROXY; throws an Error naming the bad part. */
  static parse(raw: string | undefined): TrustedProxies {
    const text = (raw ?? '').trim();
    if (text === '' || text === 'false' || text === '0') return TrustedProxies.off;
    if (text === 'true') return new TrustedProxies('hops', 1, undefined);
    if (/^\d+$/.test(text)) return new TrustedProxies('hops', Number(text), undefined);
    const entries = text.split(/[\s,]+/).filter(Boolean);
    for (const entry of entries) {
      const [addr, bits, extra] = entry.split('/');
      const max = net.isIPv6(addr!) ? 128 : 32;
      if (
        extra !== undefined ||
        !net.isIP(addr!) ||
        (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > max))
      )
        throw new Error(
          `must be true, false, a hop count or a list of proxy addresses and CIDR ranges, got "${entry}"`,
        );
    }
    return new TrustedProxies('list', 0, blockListOf(entries));
  }

  get enabled(): boolean {
    return this.mode !== 'off';
  }

  /** Whether the connection's own address is a trusted proxy (any address, with a hop count). */
  trustsPeer(peer: string): boolean {
    if (this.mode === 'hops') return true;
    if (this.mode === 'off') return false;
    const p = plainAddress(peer);
    return p !== undefined && contains(this.list!, p);
  }

  /**
   * The client's address given the connection's (`peer`) and the X-Forwarded-For header's entries, left to
   * right. An entry that is no IP address ends the walk: the proxy to its right is taken instead.
   */
  clientOf(peer: string, forwardedFor: string[]): string {
    if (!this.trustsPeer(peer)) return peer;
    let client = peer;
    for (let i = forwardedFor.length - 1, hop = 1; i >= 0; i--, hop++) {
      const entry = plainAddress(forwardedFor[i]!);
      if (entry === undefined) return client;
      client = entry;
      if (this.mode === 'hops' ? hop >= this.hops : !contains(this.list!, entry)) return client;
    }
    return client;
  }
}

/** The entries of X-Forwarded-For (every header line, in order). */
export function forwardedForEntries(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const lines = Array.isArray(header) ? header : [header];
  const out: string[] = [];
  for (const line of lines) for (const part of line.split(',')) if (part.trim()) out.push(part.trim());
  return out;
}
