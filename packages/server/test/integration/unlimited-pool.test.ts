import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamAgent } from '../../src/relay/upstream/agent.js';

/**
 * The relay's upstream agent without a connection limit (the default): each open stream holds a connection of its
 * own, a freed connection is reused before a new one is opened, and connections the upstream closes while idle are
 * dropped from the pool and its counts.
 */
const STREAMS = 200;
const HOLD_TIMEOUT_MS = 10_000;
const SEQUENTIAL_CALLS = 20;

describe('upstream agent without a connection limit', () => {
  let origin = '';
  let accepted = 0;
  let open = 0;
  let maxOpen = 0;
  /** Calls each upstream socket carried at once, at most. */
  let mostOnOneSocket = 0;
  const inFlight = new Map<Socket, number>();
  const sockets = new Set<Socket>();
  let holding = true;
  let releaseAll!: () => void;
  const released = new Promise<void>((r) => (releaseAll = r));
  const hold = setTimeout(() => releaseAll(), HOLD_TIMEOUT_MS);

  const server = http.createServer((req, res) => {
    const n = (inFlight.get(req.socket) ?? 0) + 1;
    inFlight.set(req.socket, n);
    mostOnOneSocket = Math.max(mostOnOneSocket, n);
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    maxOpen = Math.max(maxOpen, ++open);
    if (open >= STREAMS) releaseAll();
    const end = () => {
      open--;
      inFlight.set(req.socket, inFlight.get(req.socket)! - 1);
      res.end(`data: ${req.socket.remotePort}\n\ndata: [DONE]\n\n`);
    };
    if (holding) void released.then(end);
    else end();
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s: Socket) => {
    accepted++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const agent: Agent = createUpstreamAgent({ bodyTimeoutMs: HOLD_TIMEOUT_MS, connections: { maxConnsPerHost: 0 } });
  const post = async (): Promise<string> => {
    const res = await agent.request({
      origin,
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"stream":true}',
    });
    expect(res.statusCode).toBe(200);
    return res.body.text();
  };
  const statsOf = () => agent.stats[origin] as unknown as { connected: number; free: number; running: number };

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    clearTimeout(hold);
    await agent.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it(`opens a connection per open stream: ${STREAMS} streams at once, one call per socket`, async () => {
    const calls = Array.from({ length: STREAMS }, () => post());
    await released;
    // Every stream was open at the same time, each on a socket of its own.
    expect(maxOpen).toBe(STREAMS);
    expect(mostOnOneSocket).toBe(1);
    const bodies = await Promise.all(calls);
    for (const b of bodies) expect(b).toMatch(/data: \[DONE\]\n\n$/);
    expect(accepted).toBe(STREAMS);
  });

  it('reuses a freed connection before opening another, the most recently freed first', async () => {
    holding = false;
    await expect.poll(() => statsOf().free).toBe(STREAMS);
    const ports = new Set<string>();
    for (let i = 0; i < SEQUENTIAL_CALLS; i++) ports.add(/data: (\d+)/.exec(await post())![1]!);
    // No new connection, and the calls kept to the top of the free stack: the connection freed last (a call's
    // connection is freed just after its answer is read, so the next call may take the one before it). Taking the
    // oldest freed first would have cycled through all of them.
    expect(accepted).toBe(STREAMS);
    expect(ports.size).toBeLessThanOrEqual(2);
    await expect.poll(() => statsOf()).toMatchObject({ connected: STREAMS, free: STREAMS, running: 0 });
  });

  it('keeps the connection of a call undici refuses before sending it (an invalid header value)', async () => {
    const refused = agent.request({
      origin,
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { 'x-bad': 'a\nb' },
      body: '{}',
    });
    await expect(refused).rejects.toThrow(/header/i);
    expect(statsOf()).toMatchObject({ connected: STREAMS, free: STREAMS });
    expect(await post()).toMatch(/data: \[DONE\]\n\n$/);
    expect(accepted).toBe(STREAMS);
  });

  it('drops connections the upstream closes while idle, and opens a new one for the next call', async () => {
    for (const s of sockets) s.destroy();
    await expect.poll(() => statsOf()?.connected ?? 0).toBe(0);
    expect(statsOf()?.free ?? 0).toBe(0);
    expect(await post()).toMatch(/data: \[DONE\]\n\n$/);
    expect(accepted).toBe(STREAMS + 1);
    await expect.poll(() => statsOf()).toMatchObject({ connected: 1, free: 1 });
  });
});
