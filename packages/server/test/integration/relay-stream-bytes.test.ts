import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Client } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { listenLocally, type LocalServer } from '../support/local-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const chunkEvent = (content: string) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;
const usageEvent = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 } })}\n\n`;

/** An upstream that answers every call with `writes`, each written on its own after a pause (separate reads). */
async function scriptedUpstream(writes: Buffer[]): Promise<LocalServer> {
  return listenLocally(
    http.createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const w of writes) {
          res.write(w);
          await sleep(20);
        }
        res.end();
      });
    }),
  );
}

// A multi-byte character cut between two writes, an event cut in its middle, then whole events, the usage event
// (the client did not ask for it) and [DONE].
const first = Buffer.from(chunkEvent('你好, 🙂'));
const cut = first.indexOf(Buffer.from('好')) + 1;
const whole = Buffer.from(chunkEvent(' whole 🙂') + chunkEvent(' again'));
const writes = [
  first.subarray(0, cut),
  first.subarray(cut),
  whole,
  Buffer.from(usageEvent),
  Buffer.from('data: [DONE]\n\n'),
];

/** The relay passes an OpenAI stream's bytes on exactly, however the upstream's writes cut its events and characters. */
describe('OpenAI stream bytes through the relay', () => {
  let root: Client, base: string, key: string;
  useGateway('sqlite', { user: 'bytes-user', quota: 5_000_000, mock: () => scriptedUpstream(writes) }, async (g) => {
    ({ root, base, key } = g);
    await addChannel(root, { name: 'scripted', key: 'k', baseUrl: g.mock.url, models: 'gpt-4o-mini' });
  });

  it('the client receives every event byte for byte (split characters whole, the usage event it did not ask for dropped)', async () => {
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    const got = Buffer.from(await res.arrayBuffer());
    const expected = Buffer.concat([first, whole, Buffer.from('data: [DONE]\n\n')]);
    expect(got.toString('utf8')).toBe(expected.toString('utf8'));
    expect(got.equals(expected)).toBe(true);
  });
});
