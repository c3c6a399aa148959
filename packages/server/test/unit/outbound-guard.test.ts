import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchDomainList, fetchIpList, fetchPortList } from '@tollway/shared';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, embeddedIpv4, hostAddress } from '../../src/lib/address-class.js';
import { callExternal } from '../../src/lib/external-call.js';
import { checkUserUrl, outboundGuard, type ResolveAll } from '../../src/lib/outbound-dispatcher.js';
import { OutboundBlockedError, OutboundPolicy, type FetchSettings } from '../../src/lib/outbound-guard.js';
import { VertexTokenCache } from '../../src/relay/providers/vertex/token.js';

const DEFAULTS: FetchSettings = {
  enableSsrfProtection: true,
  allowPrivateIp: false,
  domainFilterMode: false,
  ipFilterMode: false,
  domainList: [],
  ipList: [],
  allowedPorts: ['80', '443', '8080', '8443'],
  applyIpFilterForDomain: true,
};
const policy = (over: Partial<FetchSettings> = {}) => new OutboundPolicy({ ...DEFAULTS, ...over });
/** The refusal message for a URL, or 'allowed'. */
const verdict = (p: OutboundPolicy, url: string): string => {
  try {
    p.checkUrl(new URL(url));
    return 'allowed';
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundBlockedError);
    return (err as Error).message;
  }
};

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    // IPv4 inside IPv6: mapped, translated, NAT64, 6to4; compatible and Teredo are reserved outright.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:169.254.169.254', 'link-local'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['::127.0.0.1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    // Odd IPv4 spellings are read the way URL parsers and inet_aton read them.
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['0', 'unspecified'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '100.128.0.1',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBeUndefined();
  });

  it('reads hosts: addresses in any spelling, names as names', () => {
    expect(hostAddress('[::1]')).toBe('::1');
    expect(hostAddress('2130706433')).toBe('127.0.0.1');
    expect(hostAddress('example.com')).toBeUndefined();
    expect(hostAddress('localhost')).toBeUndefined();
    expect(embeddedIpv4('64:ff9b::c000:201')).toBe('192.0.2.1');
    expect(embeddedIpv4('2001:db8::1')).toBeUndefined();
  });
});

describe('URL checks', () => {
  it('blocks special-use addresses in the URL, in every spelling', () => {
    const p = policy({ allowedPorts: [] });
    for (const url of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.1.1/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
    ]) {
      expect(verdict(p, url), url).toMatch(/address, which the fetch settings block$/);
    }
    expect(verdict(p, 'https://8.8.8.8/')).toBe('allowed');
    expect(verdict(p, 'https://example.com/hook')).toBe('allowed');
  });

  it('refuses other schemes and credentials whatever the settings', () => {
    const off = policy({ enableSsrfProtection: false });
    expect(verdict(off, 'file:///etc/passwd')).toContain('only http and https');
    expect(verdict(off, 'gopher://example.com/')).toContain('only http and https');
    expect(verdict(off, 'https://user:pw@example.com/')).toContain('user name or password');
    expect(verdict(off, 'http://127.0.0.1:6379/')).toBe('allowed');
  });

  it('allows private addresses when allow_private_ip is on', () => {
    expect(verdict(policy({ allowPrivateIp: true }), 'http://127.0.0.1/')).toBe('allowed');
    expect(verdict(policy({ allowPrivateIp: true }), 'http://[::ffff:10.0.0.1]:8080/')).toBe('allowed');
  });

  it('allows only the listed ports and ranges; an empty list allows all', () => {
    const p = policy();
    expect(verdict(p, 'https://example.com/')).toBe('allowed');
    expect(verdict(p, 'http://example.com/')).toBe('allowed');
    expect(verdict(p, 'https://example.com:8443/')).toBe('allowed');
    expect(verdict(p, 'https://example.com:6379/')).toBe('port 6379 is not allowed by the fetch settings');
    const ranged = policy({ allowedPorts: ['443', '9000-9100'] });
    expect(verdict(ranged, 'https://example.com:9050/')).toBe('allowed');
    expect(verdict(ranged, 'https://example.com:9101/')).toContain('port 9101');
    expect(verdict(ranged, 'http://example.com/')).toContain('port 80');
    expect(verdict(policy({ allowedPorts: [] }), 'https://example.com:6379/')).toBe('allowed');
  });

  it('domain deny-list and allow-list, with *.wildcards matching the domain and its subdomains', () => {
    const deny = policy({ domainList: ['evil.example', '*.internal.corp'] });
    expect(verdict(deny, 'https://evil.example/')).toBe('evil.example is in the blocked domain list');
    expect(verdict(deny, 'https://EVIL.example./')).toBe('evil.example is in the blocked domain list');
    expect(verdict(deny, 'https://a.b.internal.corp/')).toContain('blocked domain list');
    expect(verdict(deny, 'https://internal.corp/')).toContain('blocked domain list');
    expect(verdict(deny, 'https://notinternal.corp/')).toBe('allowed');
    expect(verdict(deny, 'https://good.example/')).toBe('allowed');
    const allow = policy({ domainFilterMode: true, domainList: ['hooks.example.com', '*.slack.com'] });
    expect(verdict(allow, 'https://hooks.example.com/x')).toBe('allowed');
    expect(verdict(allow, 'https://api.slack.com/x')).toBe('allowed');
    expect(verdict(allow, 'https://example.com/x')).toBe('example.com is not in the allowed domain list');
    expect(verdict(policy({ domainFilterMode: true }), 'https://example.com/')).toContain(
      'not in the allowed domain list',
    );
  });

  it('IP deny-list and allow-list by address or CIDR, on top of the private-address block', () => {
    const deny = policy({ ipList: ['8.8.8.0/24', '2606:4700::/32'] });
    expect(verdict(deny, 'https://8.8.8.8/')).toBe('8.8.8.8 is in the blocked IP list');
    expect(verdict(deny, 'https://[2606:4700:4700::1111]/')).toContain('blocked IP list');
    expect(verdict(deny, 'https://1.1.1.1/')).toBe('allowed');
    const allow = policy({ ipFilterMode: true, ipList: ['1.1.1.1'] });
    expect(verdict(allow, 'https://1.1.1.1/')).toBe('allowed');
    expect(verdict(allow, 'https://8.8.8.8/')).toBe('8.8.8.8 is not in the allowed IP list');
    // Listing a private address does not lift the private block; allow_private_ip does.
    expect(verdict(policy({ ipFilterMode: true, ipList: ['10.0.0.0/8'] }), 'http://10.1.1.1/')).toContain(
      'private address',
    );
    expect(
      verdict(policy({ allowPrivateIp: true, ipFilterMode: true, ipList: ['10.0.0.0/8'] }), 'http://10.1.1.1/'),
    ).toBe('allowed');
  });

  it('checks resolved addresses: private always, the IP list only with apply_ip_filter_for_domain', () => {
    const on = policy({ ipList: ['8.8.8.0/24'] });
    expect(() => on.checkAddress('127.0.0.1', 'localhost')).toThrow(
      'localhost resolves to an address that is loopback, which the fetch settings block',
    );
    expect(() => on.checkAddress('8.8.8.8', 'dns.example')).toThrow(
      'dns.example resolves to an address that is in the blocked IP list',
    );
    const off = policy({ ipList: ['8.8.8.0/24'], applyIpFilterForDomain: false });
    expect(() => off.checkAddress('8.8.8.8', 'dns.example')).not.toThrow();
    expect(() => off.checkAddress('127.0.0.1', 'localhost')).toThrow('loopback');
  });
});

describe('refusal codes of the URL checks', () => {
  /** The refusal's rule and values, for the console to word in the viewer's language. */
  const ruleOf = (fn: () => void): { rule: string; params: Record<string, unknown> } => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(OutboundBlockedError);
      const e = err as OutboundBlockedError;
      expect(e.reasonParams()).toMatchObject({ reason: e.message, reason_code: e.rule, ...e.params });
      return { rule: e.rule, params: e.params };
    }
    throw new Error('not refused');
  };
  const url = (p: OutboundPolicy, u: string) => () => p.checkUrl(new URL(u));

  it('names the rule that refused, with its values', async () => {
    expect(ruleOf(url(policy(), 'ftp://example.com/'))).toEqual({
      rule: 'outbound_scheme_refused',
      params: { scheme: 'ftp' },
    });
    expect(ruleOf(url(policy(), 'https://u:p@example.com/'))).toEqual({
      rule: 'outbound_credentials_refused',
      params: {},
    });
    expect(ruleOf(url(policy(), 'https://example.com:9/'))).toEqual({
      rule: 'outbound_port_refused',
      params: { port: 9 },
    });
    expect(ruleOf(url(policy({ domainList: ['bad.example'] }), 'https://bad.example/'))).toEqual({
      rule: 'outbound_domain_blocked',
      params: { host: 'bad.example' },
    });
    expect(
      ruleOf(url(policy({ domainFilterMode: true, domainList: ['good.example'] }), 'https://other.example/')),
    ).toEqual({
      rule: 'outbound_domain_not_allowed',
      params: { host: 'other.example' },
    });
    expect(ruleOf(url(policy(), 'http://10.0.0.1/'))).toEqual({
      rule: 'outbound_address_blocked',
      params: { target: '10.0.0.1' },
    });
    expect(ruleOf(() => policy().checkAddress('127.0.0.1', 'localhost'))).toEqual({
      rule: 'outbound_resolved_blocked',
      params: { target: 'localhost' },
    });
    expect(ruleOf(url(policy({ ipList: ['8.8.8.8'] }), 'http://8.8.8.8/'))).toEqual({
      rule: 'outbound_ip_blocked',
      params: { target: '8.8.8.8' },
    });
    expect(
      ruleOf(() => policy({ ipFilterMode: true, ipList: ['1.1.1.1'] }).checkAddress('8.8.8.8', 'dns.example')),
    ).toEqual({
      rule: 'outbound_ip_not_allowed',
      params: { target: 'dns.example' },
    });
    await expect(checkUserUrl(policy(), 'not a url')).rejects.toMatchObject({ rule: 'outbound_url_invalid' });
  });
});

describe('option value schemas', () => {
  it('accepts good lists and refuses bad entries', () => {
    expect(fetchDomainList.safeParse(['example.com', '*.example.com', 'a-b.c.d']).success).toBe(true);
    expect(fetchDomainList.safeParse(['http://example.com']).success).toBe(false);
    expect(fetchDomainList.safeParse(['exa mple.com']).success).toBe(false);
    expect(fetchIpList.safeParse(['10.0.0.0/8', '1.2.3.4', '::1', 'fd00::/8']).success).toBe(true);
    expect(fetchIpList.safeParse(['10.0.0.0/33']).success).toBe(false);
    expect(fetchIpList.safeParse(['localhost']).success).toBe(false);
    expect(fetchPortList.safeParse(['80', '443', '8000-9000']).success).toBe(true);
    for (const bad of [['0'], ['65536'], ['9000-8000'], ['80-90-100'], ['http']])
      expect(fetchPortList.safeParse(bad).success, bad[0]).toBe(false);
  });
});

describe('guarded requests through undici', () => {
  let server: http.Server;
  let port: number;
  const received: { host?: string; path?: string }[] = [];
  const agent = new Agent();
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      received.push({ host: req.headers.host, path: req.url });
      if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/landed` }).end();
      else if (req.url === '/intranet')
        res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Intranet</h1> secret=hunter2');
      else res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await agent.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A resolver standing in for DNS: each name maps to fixed addresses, and every call is counted. */
  const resolver = (table: Record<string, string[]>) => {
    const calls: string[] = [];
    const resolve: ResolveAll = async (host) => {
      calls.push(host);
      return table[host] ?? [];
    };
    return { resolve, calls };
  };
  const get = async (url: string, p: OutboundPolicy, resolve: ResolveAll) => {
    const res = await request(url, { dispatcher: agent.compose(outboundGuard(() => p, resolve)) });
    return { status: res.statusCode, text: await res.body.text(), location: res.headers.location };
  };

  it('refuses a name that resolves to loopback before any connection, and nothing is received', async () => {
    const { resolve } = resolver({ 'rebind.test': ['127.0.0.1'] });
    const before = received.length;
    await expect(get(`http://rebind.test:${port}/x`, policy({ allowedPorts: [] }), resolve)).rejects.toThrow(
      'rebind.test resolves to an address that is loopback',
    );
    await expect(get(`http://127.0.0.1:${port}/x`, policy({ allowedPorts: [] }), resolve)).rejects.toThrow(
      OutboundBlockedError,
    );
    await expect(
      get(`http://localhost:${port}/x`, policy({ allowedPorts: [] }), async () => ['::ffff:127.0.0.1']),
    ).rejects.toThrow('loopback');
    expect(received.length).toBe(before);
  });

  it('a name with one public and one private address is refused', async () => {
    const { resolve } = resolver({ 'mixed.test': ['93.184.216.34', '10.0.0.7'] });
    await expect(get(`http://mixed.test:${port}/`, policy({ allowedPorts: [] }), resolve)).rejects.toThrow('private');
  });

  it('connects to the address it checked: one resolution per request, the Host header kept', async () => {
    const { resolve, calls } = resolver({ 'hooks.test': ['127.0.0.1'] });
    const res = await get(
      `http://hooks.test:${port}/ping`,
      policy({ allowPrivateIp: true, allowedPorts: [] }),
      resolve,
    );
    expect(res).toMatchObject({ status: 200, text: 'ok' });
    // hooks.test exists only in this resolver: reaching the server proves the connection used the checked address.
    expect(received.at(-1)).toEqual({ host: `hooks.test:${port}`, path: '/ping' });
    expect(calls).toEqual(['hooks.test']);
  });

  it('does not follow a redirect (to a private address or anywhere)', async () => {
    const { resolve } = resolver({ 'public.test': ['127.0.0.1'] });
    const before = received.length;
    const res = await get(
      `http://public.test:${port}/redirect`,
      policy({ allowPrivateIp: true, allowedPorts: [] }),
      resolve,
    );
    expect(res.status).toBe(302);
    expect(received.slice(before).map((r) => r.path)).toEqual(['/redirect']);
  });

  it('refuses a blocked port before resolving', async () => {
    const { resolve, calls } = resolver({ 'hooks.test': ['127.0.0.1'] });
    await expect(get(`http://hooks.test:${port}/`, policy({ allowPrivateIp: true }), resolve)).rejects.toThrow(
      `port ${port} is not allowed`,
    );
    expect(calls).toEqual([]);
  });

  it('a Vertex AI key whose token_uri is some other page: the page is not echoed', async () => {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = JSON.stringify({
      type: 'service_account',
      project_id: 'p',
      client_email: 'a@p.iam.gserviceaccount.com',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      token_uri: `http://127.0.0.1:${port}/intranet`,
    });
    await expect(new VertexTokenCache().token(key)).rejects.toMatchObject({
      message: 'Vertex AI token exchange failed: HTTP 404',
    });
  });

  it('save-time check: blocked names refused, unresolvable names accepted for the send-time check', async () => {
    const { resolve } = resolver({ 'inside.test': ['192.168.0.5'], 'outside.test': ['8.8.4.4'] });
    await expect(checkUserUrl(policy(), 'https://inside.test/hook', resolve)).rejects.toThrow('private');
    await expect(checkUserUrl(policy(), 'https://outside.test/hook', resolve)).resolves.toBeUndefined();
    await expect(checkUserUrl(policy(), 'https://nowhere.test/hook', resolve)).resolves.toBeUndefined();
    await expect(checkUserUrl(policy(), 'not a url', resolve)).rejects.toThrow('not a valid URL');
  });
});

describe('third-party calls of the sign-in flows', () => {
  it('say what failed without the address that failed', async () => {
    const err = await callExternal('the OIDC provider', 'http://127.0.0.1:1/token', {
      method: 'POST',
      form: { code: 'c' },
    }).catch((e: Error) => e);
    expect((err as Error).message).toBe('cannot reach the OIDC provider: connection failed (ECONNREFUSED)');
  });
});
