// The SSRF guard's rules: which URLs and addresses the server may fetch on a user's behalf.
import net from 'node:net';
import { ErrorCode, parsePortRange } from '@tollway/shared';
import { ReasonError } from './reason-error.js';
import type { OptionReader } from './option-reader.js';
import { classifyAddress, hostAddress } from './address-class.js';

/** The fetch settings, named as new-api's fetch_setting.* options. */
export interface FetchSettings {
  enableSsrfProtection: boolean;
  allowPrivateIp: boolean;
  /** true: domainList is an allow-list; false: a deny-list. */
  domainFilterMode: boolean;
  /** true: ipList is an allow-list; false: a deny-list. */
  ipFilterMode: boolean;
  /** example.com or *.example.com (the wildcard also matches example.com). */
  domainList: string[];
  /** Addresses or CIDR blocks. */
  ipList: string[];
  /** Ports or ranges ("80", "8000-9000"); empty allows every port. */
  allowedPorts: string[];
  /** Also apply the IP list to the addresses a domain resolves to. */
  applyIpFilterForDomain: boolean;
}

/** A URL or address the fetch settings refuse; the message is meant for the person who supplied it. */
export class OutboundBlockedError extends ReasonError {
  readonly code = 'OUTBOUND_BLOCKED';
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };
interface PortRange {
  from: number;
  to: number;
}

/** Adds "10.0.0.0/8", "::1" or "2001:db8::/32" to `list`; false when the text is neither an address nor a block. */
export function addAddressOrBlock(list: net.BlockList, text: string): boolean {
  const [addr = '', bits, extra] = text.trim().split('/');
  if (extra !== undefined) return false;
  const family = net.isIPv4(addr) ? 'ipv4' : net.isIPv6(addr) ? 'ipv6' : undefined;
  if (!family) return false;
  if (bits === undefined) {
    list.addAddress(addr, family);
    return true;
  }
  const prefix = /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= (family === 'ipv4' ? 32 : 128))) return false;
  list.addSubnet(addr, prefix, family);
  return true;
}

const normalizeHost = (host: string): string => host.toLowerCase().replace(/\.$/, '');

/** The fetch settings compiled for checking: ports, domain patterns and the IP list. */
export class OutboundPolicy {
  private readonly ports: PortRange[];
  private readonly domains: string[];
  private readonly ips = new net.BlockList();
  private readonly ipCount: number;

  constructor(readonly settings: FetchSettings) {
    this.ports = settings.allowedPorts.flatMap((p) => (p.trim() ? [parsePortRange(p) ?? { from: 0, to: -1 }] : []));
    this.domains = settings.domainList.map((d) => normalizeHost(d.trim())).filter(Boolean);
    this.ipCount = settings.ipList.filter((ip) => ip.trim() && addAddressOrBlock(this.ips, ip)).length;
  }

  get enabled(): boolean {
    return this.settings.enableSsrfProtection;
  }

  /**
   * Checks what the URL itself says: http(s), an allowed port, an allowed domain, and, when the host is an IP
   * address (in any spelling), that address. Domains still need checkResolved for every address they resolve to.
   */
  checkUrl(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      const scheme = url.protocol.replace(/:$/, '');
      throw new OutboundBlockedError(
        `only http and https URLs can be fetched, not ${scheme}`,
        ErrorCode.OutboundSchemeRefused,
        { scheme },
      );
    }
    if (url.username || url.password)
      throw new OutboundBlockedError(
        'URLs with a user name or password are not fetched',
        ErrorCode.OutboundCredentialsRefused,
      );
    if (!this.enabled) return;
    const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol]!;
    if (this.ports.length && !this.ports.some((r) => port >= r.from && port <= r.to))
      throw new OutboundBlockedError(
        `port ${port} is not allowed by the fetch settings`,
        ErrorCode.OutboundPortRefused,
        { port },
      );
    const ip = hostAddress(url.hostname);
    if (ip !== undefined) return this.checkAddress(ip, undefined);
    const host = normalizeHost(url.hostname);
    const listed = this.domainListed(host);
    if (this.settings.domainFilterMode && !listed)
      throw new OutboundBlockedError(`${host} is not in the allowed domain list`, ErrorCode.OutboundDomainNotAllowed, {
        host,
      });
    if (!this.settings.domainFilterMode && listed)
      throw new OutboundBlockedError(`${host} is in the blocked domain list`, ErrorCode.OutboundDomainBlocked, {
        host,
      });
  }

  /**
   * Checks one address the server is about to connect to: `host` is the domain it was resolved from, or
   * undefined when the URL named the address. Special-use addresses are refused unless private access is
   * allowed; the IP list applies to literal addresses, and to resolved ones when applyIpFilterForDomain is on.
   */
  checkAddress(address: string, host: string | undefined): void {
    if (!this.enabled) return;
    const target = host === undefined ? address : `${host} resolves to an address that`;
    const cls = classifyAddress(address);
    if (cls && !this.settings.allowPrivateIp) {
      throw host === undefined
        ? new OutboundBlockedError(
            `${address} is a ${cls} address, which the fetch settings block`,
            ErrorCode.OutboundAddressBlocked,
            { target: address },
          )
        : new OutboundBlockedError(
            `${target} is ${cls}, which the fetch settings block`,
            ErrorCode.OutboundResolvedBlocked,
            { target: host },
          );
    }
    if (host !== undefined && !this.settings.applyIpFilterForDomain) return;
    const listed = this.ipCount > 0 && this.ips.check(address, net.isIPv4(address) ? 'ipv4' : 'ipv6');
    if (this.settings.ipFilterMode && !listed)
      throw new OutboundBlockedError(`${target} is not in the allowed IP list`, ErrorCode.OutboundIpNotAllowed, {
        target: host ?? address,
      });
    if (!this.settings.ipFilterMode && listed)
      throw new OutboundBlockedError(`${target} is in the blocked IP list`, ErrorCode.OutboundIpBlocked, {
        target: host ?? address,
      });
  }

  private domainListed(host: string): boolean {
    return this.domains.some(
      (d) => host === d || (d.startsWith('*.') && (host === d.slice(2) || host.endsWith(d.slice(1)))),
    );
  }
}

/** The option keys of the fetch settings (new-api's names). */
export const FETCH_SETTING_KEYS = [
  'fetch_setting.enable_ssrf_protection',
  'fetch_setting.allow_private_ip',
  'fetch_setting.domain_filter_mode',
  'fetch_setting.ip_filter_mode',
  'fetch_setting.domain_list',
  'fetch_setting.ip_list',
  'fetch_setting.allowed_ports',
  'fetch_setting.apply_ip_filter_for_domain',
] as const;

const cached = new WeakMap<OptionReader, { key: string; policy: OutboundPolicy }>();

/** The policy of the current fetch settings, rebuilt only when one of them changed. */
export function fetchPolicy(options: OptionReader): OutboundPolicy {
  const key = FETCH_SETTING_KEYS.map((k) => options.get(k)).join('\u0000');
  const hit = cached.get(options);
  if (hit?.key === key) return hit.policy;
  const list = (k: (typeof FETCH_SETTING_KEYS)[number]) => {
    const v = options.json<unknown>(k);
    return Array.isArray(v) ? v.map(String) : [];
  };
  const policy = new OutboundPolicy({
    enableSsrfProtection: options.bool('fetch_setting.enable_ssrf_protection'),
    allowPrivateIp: options.bool('fetch_setting.allow_private_ip'),
    domainFilterMode: options.bool('fetch_setting.domain_filter_mode'),
    ipFilterMode: options.bool('fetch_setting.ip_filter_mode'),
    domainList: list('fetch_setting.domain_list'),
    ipList: list('fetch_setting.ip_list'),
    allowedPorts: list('fetch_setting.allowed_ports'),
    applyIpFilterForDomain: options.bool('fetch_setting.apply_ip_filter_for_domain'),
  });
  cached.set(options, { key, policy });
  return policy;
}
