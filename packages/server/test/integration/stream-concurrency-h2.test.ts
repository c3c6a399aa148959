import fs from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamAgent } from '../../src/relay/upstream/agent.js';
import { makeSelfSignedCert } from '../support/self-signed-cert.js';

/**
 * The relay's upstream agent with HTTP/2 (RELAY_HTTP2_ENABLED / a channel's http2_enabled) against TLS upstreams
 * with a self-signed certificate made here and trusted by the test's agents only: streams share a few
 * connections on an upstream that offers HTTP/2, and an upstream that answers ALPN with HTTP/1.1 gets one call
 * per connection at a time (never pipelined).
 */
const STREAMS = 60;
const LIMIT = 2;
const HOLD_TIMEOUT_MS = 10_000;
const H1_CALLS = 6;
const H1_ANSWER_MS = 100;
/** An HTTP/2 upstream announcing fewer streams than undici's default 100 gets LOW_CALLS calls at once. */
const LOW_STREAMS = 20;
const LOW_CALLS = 50;
const LOW_ANSWER_MS = 200;

const listen = (server: https.Server | http2.Http2SecureServer) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`https://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

/** POSTs a chat-like body and reads the answer whole. */
async function post(agent: Agent, origin: string): Promise<{ status: number; text: string }> {
  const res = await agent.request({
    origin,
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"stream":true}',
  });
  return { status: res.statusCode, text: await res.body.text() };
}

describe('upstream agent with HTTP/2', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-h2-test-'));
  const tls = makeSelfSignedCert(dir);
  const agents: Agent[] = [];
  const agent = (http2: boolean) => {
    const a = createUpstreamAgent({
      bodyTimeoutMs: HOLD_TIMEOUT_MS,
      connections: { maxConnsPerHost: LIMIT, http2 },
      tls: { ca: tls.cert },
    });
    agents.push(a);
    return a;
  };

  // An upstream offering HTTP/2 and HTTP/1.1: holds every stream until STREAMS are open at once.
  let h2Url = '';
  let tlsConnections = 0;
  let open = 0;
  let maxOpen = 0;
  const versions = new Set<string>();
  let releaseAll!: () => void;
  const released = new Promise<void>((r) => (releaseAll = r));
  const h2Server = http2.createSecureServer({ key: tls.key, cert: tls.cert, allowHTTP1: true });
  h2Server.on('secureConnection', () => tlsConnections++);
  h2Server.on('request', (req, res) => {
    versions.add(req.httpVersion);
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    maxOpen = Math.max(maxOpen, ++open);
    if (open >= STREAMS) releaseAll();
    void released.then(() => {
      open--;
      res.end('data: [DONE]\n\n');
    });
  });
  const hold = setTimeout(() => releaseAll(), HOLD_TIMEOUT_MS);

  // An upstream speaking HTTP/1.1 only (ALPN without h2): records the most calls in flight on one socket.
  let h1Url = '';
  let mostOnOneSocket = 0;
  const inFlight = new Map<unknown, number>();
  const h1Server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const n = (inFlight.get(req.socket) ?? 0) + 1;
    inFlight.set(req.socket, n);
    mostOnOneSocket = Math.max(mostOnOneSocket, n);
    req.resume();
    setTimeout(() => {
      inFlight.set(req.socket, (inFlight.get(req.socket) ?? 1) - 1);
      res.end('data: [DONE]\n\n');
    }, H1_ANSWER_MS);
  });

  // An HTTP/2 upstream announcing SETTINGS_MAX_CONCURRENT_STREAMS = LOW_STREAMS: records the most streams open on one session.
  let lowUrl = '';
  let mostOnOneSession = 0;
  const lowServer = http2.createSecureServer({
    key: tls.key,
    cert: tls.cert,
    settings: { maxConcurrentStreams: LOW_STREAMS },
  });
  const openBySession = new Map<unknown, number>();
  lowServer.on('stream', (stream) => {
    const n = (openBySession.get(stream.session) ?? 0) + 1;
    openBySession.set(stream.session, n);
    mostOnOneSession = Math.max(mostOnOneSession, n);
    stream.resume();
    setTimeout(() => {
      openBySession.set(stream.session, (openBySession.get(stream.session) ?? 1) - 1);
      stream.respond({ ':status': 200, 'content-type': 'text/event-stream' });
      stream.end('data: [DONE]\n\n');
    }, LOW_ANSWER_MS);
  });

  beforeAll(async () => {
    h2Url = await listen(h2Server);
    h1Url = await listen(h1Server);
    lowUrl = await listen(lowServer);
  });
  afterAll(async () => {
    clearTimeout(hold);
    await Promise.all(agents.map((a) => a.close()));
    h1Server.closeAllConnections();
    await new Promise((r) => h1Server.close(r));
    await new Promise((r) => h2Server.close(r));
    await new Promise((r) => lowServer.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    `${STREAMS} streams are open at once over at most ${LIMIT} connections to an upstream offering HTTP/2`,
    { timeout: 30_000 },
    async () => {
      const a = agent(true);
      const results = await Promise.all(Array.from({ length: STREAMS }, () => post(a, h2Url)));
      expect(results.every((r) => r.status === 200 && r.text === 'data: first\n\ndata: [DONE]\n\n')).toBe(true);
      expect(maxOpen).toBe(STREAMS);
      expect(tlsConnections).toBeLessThanOrEqual(LIMIT);
      expect([...versions]).toEqual(['2.0']);
    },
  );

  it('HTTP/2 off: the same upstream is spoken to in HTTP/1.1', { timeout: 30_000 }, async () => {
    versions.clear();
    releaseAll();
    const results = await Promise.all(Array.from({ length: LIMIT }, () => post(agent(false), h2Url)));
    expect(results.map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
    expect([...versions]).toEqual(['1.1']);
  });

  it(
    'an upstream without HTTP/2 gets one call at a time per connection (no pipelining), within the limit',
    { timeout: 30_000 },
    async () => {
      const a = agent(true);
      const results = await Promise.all(Array.from({ length: H1_CALLS }, () => post(a, h1Url)));
      expect(results.map((r) => r.status)).toEqual(Array(H1_CALLS).fill(200));
      expect(mostOnOneSocket).toBe(1);
      expect(inFlight.size).toBeLessThanOrEqual(LIMIT);
    },
  );

  it(
    `an HTTP/2 upstream announcing ${LOW_STREAMS} streams gets at most that many per connection; none refused`,
    { timeout: 30_000 },
    async () => {
      const a = agent(true);
      const results = await Promise.all(Array.from({ length: LOW_CALLS }, () => post(a, lowUrl)));
      expect(results.map((r) => r.status)).toEqual(Array(LOW_CALLS).fill(200));
      expect(mostOnOneSession).toBeLessThanOrEqual(LOW_STREAMS);
      expect(openBySession.size).toBeLessThanOrEqual(LIMIT);
    },
  );
});
