import net from 'node:net';

/** An IP allow-list (one address or CIDR per line); empty means every address is allowed. */
export class IpAllowList {
  private readonly list = new net.BlockList();
  readonly empty: boolean;

  constructor(text: string) {
    let count = 0;
    for (const raw of text.split(/[\n,]/)) {
      const entry = raw.trim();
      if (!entry) continue;
      const [addr, bits] = entry.split('/');
      const type = net.isIPv6(addr!) ? 'ipv6' : 'ipv4';
      if (!net.isIP(addr!)) continue;
      if (bits !== undefined) this.list.addSubnet(addr!, Number(bits), type);
      else this.list.addAddress(addr!, type);
      count++;
    }
    this.empty = count === 0;
  }

  allows(ip: string): boolean {
    if (this.empty) return true;
    const plain = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
    return this.list.check(plain, net.isIPv6(plain) ? 'ipv6' : 'ipv4');
  }
}

/** Validates an allow-list text; returns the first bad line. */
export function invalidIpLine(text: string): string | undefined {
  for (const raw of text.split('\n')) {
    const entry = raw.trim();
    if (!entry) continue;
    const [addr, bits, extra] = entry.split('/');
    if (extra !== undefined || !net.isIP(addr!)) return entry;
    if (bits !== undefined) {
      const max = net.isIPv6(addr!) ? 128 : 32;
      if (!/^\d+$/.test(bits) || Number(bits) > max) return entry;
    }
  }
  return undefined;
}
