import http from 'node:http';
import { listenLocally } from './local-server.js';

/** Usage every held stream reports (OpenAI's last chunk). */
export const HELD_USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
export const HELD_FIRST = 'first';
export const HELD_REST = ' rest';

/**
 * An OpenAI-format upstream whose streamed chat answers send their first chunk at once and then hold: every
 * open stream is finished together when `releaseAt` streams are open, when `release()` is called, or when
 * `timeoutMs` has passed since the first request (then `releasedBy` says so and the caller's test fails).
 */
export interface HeldStreams {
  url: string;
  /** Streams that have sent their first chunk. */
  opened: number;
  /** Most streams open at once. */
  maxOpen: number;
  releasedBy: 'count' | 'call' | 'timeout' | undefined;
  release(): void;
  /** Resolves once `n` streams are open (rejects after `timeoutMs`). */
  whenOpened(n: number, timeoutMs: number): Promise<void>;
  /** Connections open to the mock now (keep-alive ones included). */
  connections(): Promise<number>;
  close(): Promise<void>;
}

const chunk = (delta: Record<string, unknown>, finish: string | null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1700000000, model: 'held', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usageChunk = () =>
  `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1700000000, model: 'held', choices: [], usage: HELD_USAGE })}\n\n`;

export async function startHeldStreams(opts: { releaseAt: number; timeoutMs: number }): Promise<HeldStreams> {
  let open = 0;
  let releaseAll!: () => void;
  const released = new Promise<void>((r) => (releaseAll = r));
  const waiters: { n: number; resolve: () => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const state: HeldStreams = {
    url: '',
    opened: 0,
    maxOpen: 0,
    releasedBy: undefined,
    release: () => finish('call'),
    whenOpened(n, timeoutMs) {
      if (state.opened >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`only ${state.opened} of ${n} streams opened within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
      });
    },
    connections: () =>
      new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: async () => {
      finish('call');
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  function finish(by: NonNullable<HeldStreams['releasedBy']>) {
    if (state.releasedBy) return;
    state.releasedBy = by;
    clearTimeout(timer);
    releaseAll();
  }
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      timer ??= setTimeout(() => finish('timeout'), opts.timeoutMs);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(chunk({ role: 'assistant', content: HELD_FIRST }, null));
      open++;
      state.opened++;
      state.maxOpen = Math.max(state.maxOpen, open);
      for (const w of waiters.filter((x) => state.opened >= x.n)) w.resolve();
      if (state.opened >= opts.releaseAt) finish('count');
      void released.then(() => {
        res.write(chunk({ content: HELD_REST }, null));
        res.write(chunk({}, 'stop'));
        res.write(usageChunk());
        res.end('data: [DONE]\n\n');
        open--;
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  state.url = (await listenLocally(server)).url;
  return state;
}
