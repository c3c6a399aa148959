import { EventEmitter } from 'node:events';
import http from 'node:http';
import { Client } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { PING } from '../../src/relay/pipeline/keep-alive.js';
import { forwardUpstream, type StreamSink } from '../../src/relay/upstream/forward-upstream.js';
import { newStreamState, transformOpenAIChunk } from '../../src/relay/providers/openai/stream.js';
import { listenLocally } from '../support/local-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The relay's keep-alive on real sockets: an upstream SSE answer we write by hand, relayed by forwardUpstream with a
 * pass-through sink and a 50 ms interval, and the client's raw text. Pings go out only between writes, never while
 * an event is open, and stop with the stream.
 */
describe('stream keep-alive in forwardUpstream()', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** With `trackEvents`, the sink reports an event open from a chunk that does not end one until a chunk that does. */
  async function serve(trackEvents = false) {
    let open = false;
    let answer!: (res: http.ServerResponse) => void;
    const upstreamAnswer = new Promise<http.ServerResponse>((resolve) => (answer = resolve));
    const upstream = await listenLocally(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        answer(res);
      }),
    );
    closers.push(upstream.close);
    const agent = new Client(upstream.url);
    closers.push(() => agent.close());
    const sink: StreamSink = {
      whole: false,
      keepAlive: { intervalMs: 50, midEvent: trackEvents ? () => open : undefined },
      open: (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }),
      chunk: (c) => {
        open = !c.toString('utf8').endsWith('\n\n');
        return c;
      },
      close: (res, cut) => {
        res.end();
        return { kind: 'relayed', status: 200, usage: undefined, countedCompletion: 0, firstByteMs: 0, cut };
      },
    };
    const relay = await listenLocally(
      http.createServer((_req, res) => {
        void forwardUpstream(
          agent,
          { origin: upstream.url, path: '/', headers: {}, body: '{}' },
          res,
          new EventEmitter(),
          { sinkFor: () => sink },
        );
      }),
    );
    closers.push(relay.close);
    // The client's text so far (`seen`) and in full once the stream ends (`text`).
    let received = '';
    const text = fetch(relay.url).then(async (r) => {
      const decoder = new TextDecoder();
      for await (const part of r.body!) received += decoder.decode(part, { stream: true });
      return received;
    });
    return { upstream: await upstreamAnswer, text, seen: () => received };
  }

  it('writes PING after each idle interval between whole events, and nothing after the end', async () => {
    const s = await serve();
    s.upstream.write('data: 1\n\n');
    // Idle until the client has seen two pings (waiting on what arrived, not on the clock: a loaded machine delays
    // timers, never the order of what the relay writes).
    await expect
      .poll(() => s.seen().split(PING).length - 1, { timeout: 5_000, interval: 10 })
      .toBeGreaterThanOrEqual(2);
    s.upstream.write('data: 2\n\n');
    s.upstream.end();
    const text = await s.text;
    const pings = text.split(PING).length - 1;
    expect(pings).toBeGreaterThanOrEqual(2);
    expect(text.startsWith('data: 1\n\n')).toBe(true);
    expect(text.endsWith('data: 2\n\n')).toBe(true);
    expect(text.replaceAll(PING, '')).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('writes are what keep it alive: no ping while data flows faster than the interval', async () => {
    const s = await serve();
    for (let i = 0; i < 8; i++) {
      s.upstream.write(`data: ${i}\n\n`);
      await sleep(20);
    }
    s.upstream.end();
    expect(await s.text).not.toContain(PING);
  });

  it('no ping while the relay is inside an event it has not finished writing', async () => {
    const s = await serve(true);
    s.upstream.write('data: {"start of a huge event');
    await sleep(150);
    s.upstream.write('"}\n\n');
    await sleep(120);
    s.upstream.end();
    const text = await s.text;
    expect(text.indexOf(PING)).toBeGreaterThan(text.indexOf('"}\n\n'));
  });

  it('the OpenAI stream transform marks an oversized event passed on unfinished as open until its end', () => {
    const state = newStreamState();
    const huge = `data: {"x":"${'a'.repeat(1_100_000)}`;
    expect(transformOpenAIChunk(state, huge, true, () => 0)).toBe(huge);
    expect(state.midEvent).toBe(true);
    expect(transformOpenAIChunk(state, 'aa"}\n\ndata: {"y"', true, () => 0)).toBe('aa"}\n\n');
    expect(state.midEvent).toBe(false);
  });
});
