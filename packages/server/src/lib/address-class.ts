// Which special-use range an IP address belongs to, for the outbound request guard.
import net from 'node:net';

/** A special-use range: addresses the server must not reach on a user's behalf unless private access is allowed. */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier-grade NAT'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'unique local'
  | 'documentation'
  | 'reserved';

type Family = 'ipv4' | 'ipv6';

/** The special-use ranges (IANA special-purpose registries); the first matching class wins. */
const RANGES: [AddressClass, Family, string, number][] = [
  ['broadcast', 'ipv4', '255.255.255.255', 32],
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['carrier-grade NAT', 'ipv4', '100.64.0.0', 10],
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['reserved', 'ipv4', '192.88.99.0', 24],
  ['reserved', 'ipv4', '198.18.0.0', 15],
  ['documentation', 'ipv4', '192.0.2.0', 24],
  ['documentation', 'ipv4', '198.51.100.0', 24],
  ['documentation', 'ipv4', '203.0.113.0', 24],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['private', 'ipv6', 'fec0::', 10],
  ['unique local', 'ipv6', 'fc00::', 7],
  ['multicast', 'ipv6', 'ff00::', 8],
  ['reserved', 'ipv6', '100::', 64],
  ['reserved', 'ipv6', '2001::', 32],
  ['reserved', 'ipv6', '2001:10::', 28],
  ['documentation', 'ipv6', '2001:db8::', 32],
  ['private', 'ipv6', '64:ff9b:1::', 48],
  // IPv4-compatible (deprecated): never a real destination.
  ['reserved', 'ipv6', '::', 96],
];

const classLists = new Map<AddressClass, net.BlockList>();
for (const [cls, family, prefix, bits] of RANGES) {
  let list = classLists.get(cls);
  if (!list) classLists.set(cls, (list = new net.BlockList()));
  list.addSubnet(prefix, bits, family);
}
const classOrder = [...new Set(RANGES.map((r) => r[0]))];

/** IPv6 prefixes that carry an IPv4 address: [prefix, bits, byte offset of the IPv4 address]. */
const EMBEDDING: [string, number, number][] = [
  ['::ffff:0:0', 96, 12], // IPv4-mapped
  ['::ffff:0:0:0', 96, 12], // IPv4-translated (SIIT)
  ['64:ff9b::', 96, 12], // NAT64 well-known prefix
  ['2002::', 16, 2], // 6to4
];
const embeddingLists = EMBEDDING.map(([prefix, bits, offset]) => {
  const list = new net.BlockList();
  list.addSubnet(prefix, bits, 'ipv6');
  return { list, offset };
});

/** The 16 bytes of a valid IPv6 address (zone id dropped); undefined when it is not one. */
export function ipv6Bytes(address: string): Uint8Array | undefined {
  const text = address.split('%')[0]!;
  if (net.isIPv6(text) === false) return undefined;
  let head = text;
  let tailV4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (net.isIPv4(last)) {
    tailV4 = last.split('.').map(Number);
    head = text.slice(0, lastColon + 1) + '0:0';
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '') : []);
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const fill = right === undefined ? [] : Array<string>(8 - l.length - r.length).fill('0');
  const all = [...l, ...fill, ...r];
  if (all.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    const v = parseInt(g, 16);
    bytes[i * 2] = v >> 8;
    bytes[i * 2 + 1] = v & 0xff;
  });
  if (tailV4.length === 4) bytes.set(tailV4, 12);
  return bytes;
}

/** The IPv4 address an IPv6 address carries (mapped, translated, NAT64, 6to4), or undefined. */
export function embeddedIpv4(address: string): string | undefined {
  if (net.isIPv6(address.split('%')[0]!) === false) return undefined;
  const plain = address.split('%')[0]!;
  for (const { list, offset } of embeddingLists) {
    if (!list.check(plain, 'ipv6')) continue;
    const bytes = ipv6Bytes(plain);
    return bytes ? [...bytes.subarray(offset, offset + 4)].join('.') : undefined;
  }
  return undefined;
}

/**
 * The textual IP address a URL host stands for, or undefined for a domain name. Brackets are removed and
 * the WHATWG URL parser canonicalises IPv4 spellings such as 2130706433, 0x7f.1 and 0177.0.0.1.
 */
export function hostAddress(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (net.isIP(bare)) return bare;
  let canonical: string;
  try {
    canonical = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
  const unbracketed = canonical.startsWith('[') ? canonical.slice(1, -1) : canonical;
  return net.isIP(unbracketed) ? unbracketed : undefined;
}

/**
 * The special-use class of an IP address, or undefined for an ordinary public one. An IPv6 address that
 * carries an IPv4 address (::ffff:127.0.0.1, 64:ff9b::a00:1, 2002:7f00:1::) is classed by that address.
 * Text that is not an address is 'reserved' (never reachable).
 */
export function classifyAddress(address: string): AddressClass | undefined {
  const ip = hostAddress(address);
  if (!ip) return 'reserved';
  const plain = ip.split('%')[0]!;
  const family: Family = net.isIPv4(plain) ? 'ipv4' : 'ipv6';
  if (family === 'ipv6') {
    const inner = embeddedIpv4(plain);
    if (inner !== undefined) return classifyAddress(inner);
  }
  for (const cls of classOrder) if (classLists.get(cls)!.check(plain, family)) return cls;
  return undefined;
}
