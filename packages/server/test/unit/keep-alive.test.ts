import http from 'node:http';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { PING } from '../../src/relay/keep-alive.js';
import { newStreamState, transformOpenAIChunk } from '../../src/relay/providers/openai/stream.js';
import { pump } from '../../src/relay/pump.js';
import { listenLocally } from '../support/local-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * pump()'s keep-alive on a real socket: a relay-side upstream stream we feed by hand, a 50 ms interval, and the
 * client's raw text. Pings go out only between writes, never while an event is open, and stop with the stream.
 */
describe('stream keep-alive in pump()', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  async function serve(midEvent?: () => boolean) {
    const upstream = new PassThrough();
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void pump(upstream, res, { chunk: (c) => c }, { intervalMs: 50, midEvent }).then(() => res.end());
    });
    const local = await listenLocally(server);
    close = local.close;
    // Not awaited: the head goes out with the first write, which each test makes.
    const text = fetch(local.url).then((answer) => answer.text());
    return { upstream, text };
  }

  it('writes PING after each idle interval between whole events, and nothing after the end', async () => {
    const s = await serve();
    s.upstream.write('data: 1\n\n');
    await sleep(180);
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
    let open = true;
    const s = await serve(() => open);
    s.upstream.write('data: {"start of a huge event');
    await sleep(150);
    open = false;
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
