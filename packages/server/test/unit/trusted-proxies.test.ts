import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { forwardedForEntries, TrustedProxies } from '../../src/lib/trusted-proxies.js';

const xff = (h: string) => forwardedForEntries(h);

describe('TRUST_PROXY: the client is the right-most X-Forwarded-For entry no trusted proxy wrote', () => {
  it('off: the connection address, whatever the header', () => {
    for (const raw of [undefined, '', 'false', '0'])
      expect(TrustedProxies.parse(raw).clientOf('198.51.100.1', xff('203.0.113.9'))).toBe('198.51.100.1');
  });

  it('true is one hop: the right-most entry, never the left-most', () => {
    const one = TrustedProxies.parse('true');
    expect(one.clientOf('10.0.0.2', xff('203.0.113.9, 127.0.0.1'))).toBe('127.0.0.1');
    expect(one.clientOf('10.0.0.2', xff('198.51.100.4'))).toBe('198.51.100.4');
    expect(one.clientOf('10.0.0.2', [])).toBe('10.0.0.2');
    expect(TrustedProxies.parse('1').clientOf('10.0.0.2', xff('a, 198.51.100.4'))).toBe('198.51.100.4');
  });

  it('a hop count skips that many proxies from the right (the connection is the first)', () => {
    const two = TrustedProxies.parse('2');
    expect(two.clientOf('10.0.0.2', xff('203.0.113.9, 198.51.100.4, 10.0.0.1'))).toBe('198.51.100.4');
    // Fewer entries than hops: the left-most, which a trusted proxy wrote.
    expect(two.clientOf('10.0.0.2', xff('198.51.100.4'))).toBe('198.51.100.4');
  });

  it('a list: the connection must be one of them; entries in it are skipped from the right', () => {
    const list = TrustedProxies.parse('127.0.0.1, 10.0.0.0/8 2001:db8::/32');
    expect(list.clientOf('127.0.0.1', xff('203.0.113.5, 198.51.100.7, 10.1.2.3, 10.0.0.1'))).toBe('198.51.100.7');
    expect(list.clientOf('::ffff:127.0.0.1', xff('198.51.100.7'))).toBe('198.51.100.7');
    expect(list.clientOf('2001:db8::1', xff('198.51.100.7, 2001:db8::5'))).toBe('198.51.100.7');
    expect(list.clientOf('198.51.100.1', xff('203.0.113.5'))).toBe('198.51.100.1');
    // Every entry a proxy: the left-most.
    expect(list.clientOf('127.0.0.1', xff('10.0.0.9, 10.0.0.1'))).toBe('10.0.0.9');
  });

  it('an entry that is no address ends the walk at the proxy to its right; ports and brackets are dropped', () => {
    const list = TrustedProxies.parse('127.0.0.1,10.0.0.0/8');
    expect(list.clientOf('127.0.0.1', xff('evil, 10.0.0.3'))).toBe('10.0.0.3');
    expect(list.clientOf('127.0.0.1', xff('unknown'))).toBe('127.0.0.1');
    expect(list.clientOf('127.0.0.1', xff('198.51.100.7:4711'))).toBe('198.51.100.7');
    expect(list.clientOf('127.0.0.1', xff('[2001:db8::9]:443'))).toBe('2001:db8::9');
  });

  it('ReverseProxyEnabled without TRUST_PROXY believes a proxy on this host or a private network only', () => {
    const local = TrustedProxies.localNetworks;
    expect(local.trustsPeer('127.0.0.1')).toBe(true);
    expect(local.trustsPeer('192.168.1.10')).toBe(true);
    expect(local.trustsPeer('::1')).toBe(true);
    expect(local.trustsPeer('203.0.113.1')).toBe(false);
  });

  it('refuses a value that is none of these at start', () => {
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.1/8/1', 'fe80::/129', '-1'])
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy.mode).toBe('hops');
    expect(loadConfig({}).trustProxy.enabled).toBe(false);
  });
});
