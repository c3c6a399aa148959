import http from 'node:http';
import { countTokens } from 'gpt-tokenizer';
import { listenLocally } from './local-server.js';

/**
 * A mock model vendor for money tests (real HTTP on 127.0.0.1) that answers as long as it is asked to and honours
 * the output cap as the real vendors do: OpenAI Chat Completions (`max_completion_tokens` / `max_tokens`, `n`),
 * Anthropic Messages (`max_tokens`) and Gemini generateContent / streamGenerateContent (`maxOutputTokens`,
 * `candidateCount`), plain and streamed (SSE).
 *
 * - The answer length: the last user text's `words:N` (N words per choice; 20 when absent). Every word is ` ok`,
 *   exactly one token in o200k (the relay's local counter), so the tokens a client received are its words.
 * - The behaviour: flags in the API key, joined by `-`: `ignore` (ignores the cap: always N words), `nousage`
 *   (no usage anywhere in the answer), `slow` (5 ms between stream events). Any other key honours the cap.
 * - Usage: prompt tokens = the o200k count of the prompt's text (no framing; the relay's own count is never
 *   below it), completion tokens = the words sent (all choices).
 */
export const WORD = ' ok';
export const DEFAULT_WORDS = 20;
/** Words per stream event. */
export const WORDS_PER_EVENT = 10;
const SLOW_EVENT_MS = 5;

export interface MoneyVendor {
  url: string;
  /** Bodies received, newest last (path and parsed JSON). */
  requests: { path: string; key: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

interface Plan {
  /** Words per choice. */
  words: number;
  choices: number;
  promptTokens: number;
  usage: boolean;
  slow: boolean;
}

type Json = Record<string, unknown>;

const textOf = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c
          .map((p) => (p && typeof p === 'object' && typeof (p as Json).text === 'string' ? (p as Json).text : ''))
          .join('')
      : '';

/** The prompt's text and the cap, per vendor. */
function readRequest(path: string, body: Json): { prompt: string; cap: number | undefined; choices: number } {
  if (path === '/v1/messages') {
    const msgs = (body.messages as Json[] | undefined) ?? [];
    return {
      prompt: textOf(body.system) + msgs.map((m) => textOf(m.content)).join(''),
      cap: body.max_tokens as number | undefined,
      choices: 1,
    };
  }
  if (path.includes(':generateContent') || path.includes(':streamGenerateContent')) {
    const contents = (body.contents as { parts?: Json[] }[] | undefined) ?? [];
    const g = (body.generationConfig as Json | undefined) ?? {};
    return {
      prompt: contents.map((c) => textOf(c.parts)).join(''),
      cap: g.maxOutputTokens as number | undefined,
      choices: Number(g.candidateCount ?? 1),
    };
  }
  const msgs = (body.messages as Json[] | undefined) ?? [];
  return {
    prompt: msgs.map((m) => textOf(m.content)).join(''),
    cap: (body.max_completion_tokens ?? body.max_tokens) as number | undefined,
    choices: Number(body.n ?? 1),
  };
}

function planOf(path: string, key: string, body: Json): Plan {
  const flags = new Set(key.split('-'));
  const { prompt, cap, choices } = readRequest(path, body);
  const asked = /words:(\d+)/.exec(prompt);
  const wanted = asked ? Number(asked[1]) : DEFAULT_WORDS;
  const words = !flags.has('ignore') && typeof cap === 'number' && cap > 0 ? Math.min(wanted, cap) : wanted;
  return { words, choices, promptTokens: countTokens(prompt), usage: !flags.has('nousage'), slow: flags.has('slow') };
}

/** Pieces of one choice's answer: WORDS_PER_EVENT words each. */
function pieces(words: number): string[] {
  const out: string[] = [];
  for (let left = words; left > 0; left -= WORDS_PER_EVENT) out.push(WORD.repeat(Math.min(WORDS_PER_EVENT, left)));
  return out;
}

type Send = (event: string | undefined, data: unknown) => Promise<boolean>;

async function streamOpenAI(p: Plan, body: Json, send: Send): Promise<void> {
  const model = String(body.model);
  const chunk = (index: number, delta: Json, finish: string | null) => ({
    id: 'chatcmpl-money',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [{ index, delta, finish_reason: finish }],
  });
  for (let i = 0; i < p.choices; i++)
    for (const piece of pieces(p.words)) if (!(await send(undefined, chunk(i, { content: piece }, null)))) return;
  for (let i = 0; i < p.choices; i++) await send(undefined, chunk(i, {}, 'stop'));
  const wants = (body.stream_options as Json | undefined)?.include_usage === true;
  if (wants && p.usage) {
    const usage = {
      prompt_tokens: p.promptTokens,
      completion_tokens: p.words * p.choices,
      total_tokens: p.promptTokens + p.words * p.choices,
    };
    await send(undefined, {
      id: 'chatcmpl-money',
      object: 'chat.completion.chunk',
      created: 1,
      model,
      choices: [],
      usage,
    });
  }
  await send(undefined, '[DONE]');
}

async function streamAnthropic(p: Plan, body: Json, send: Send): Promise<void> {
  const usage = (out: number) => (p.usage ? { input_tokens: p.promptTokens, output_tokens: out } : {});
  const start = {
    type: 'message_start',
    message: {
      id: 'msg_money',
      type: 'message',
      role: 'assistant',
      content: [],
      model: body.model,
      stop_reason: null,
      usage: usage(1),
    },
  };
  if (!(await send('message_start', start))) return;
  await send('content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  });
  for (const piece of pieces(p.words))
    if (
      !(await send('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: piece },
      }))
    )
      return;
  await send('content_block_stop', { type: 'content_block_stop', index: 0 });
  await send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: p.usage ? { output_tokens: p.words } : {},
  });
  await send('message_stop', { type: 'message_stop' });
}

const geminiUsage = (p: Plan, words: number) =>
  p.usage
    ? {
        usageMetadata: {
          promptTokenCount: p.promptTokens,
          candidatesTokenCount: words,
          totalTokenCount: p.promptTokens + words,
        },
      }
    : {};

async function streamGemini(p: Plan, send: Send): Promise<void> {
  let sent = 0;
  for (let i = 0; i < p.choices; i++) {
    for (const piece of pieces(p.words)) {
      sent += piece.length / WORD.length;
      const candidate = { content: { role: 'model', parts: [{ text: piece }] }, index: i };
      if (!(await send(undefined, { candidates: [candidate], ...geminiUsage(p, sent) }))) return;
    }
  }
  await send(undefined, {
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
    ...geminiUsage(p, sent),
  });
}

function plainAnswer(path: string, p: Plan, body: Json): unknown {
  const text = WORD.repeat(p.words);
  const out = p.words * p.choices;
  if (path === '/v1/messages') {
    return {
      id: 'msg_money',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: p.usage ? { input_tokens: p.promptTokens, output_tokens: out } : { input_tokens: 0, output_tokens: 0 },
    };
  }
  if (path.includes(':generateContent')) {
    const candidates = Array.from({ length: p.choices }, (_, index) => ({
      content: { role: 'model', parts: [{ text }] },
      finishReason: 'STOP',
      index,
    }));
    return { candidates, ...geminiUsage(p, out) };
  }
  const choices = Array.from({ length: p.choices }, (_, index) => ({
    index,
    message: { role: 'assistant', content: text },
    finish_reason: 'stop',
  }));
  return {
    id: 'chatcmpl-money',
    object: 'chat.completion',
    created: 1,
    model: body.model,
    choices,
    ...(p.usage
      ? { usage: { prompt_tokens: p.promptTokens, completion_tokens: out, total_tokens: p.promptTokens + out } }
      : {}),
  };
}

function keyOf(req: http.IncomingMessage, url: URL): string {
  return (
    String(req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? url.searchParams.get('key') ?? '') ||
    String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '')
  );
}

export async function startMoneyVendor(): Promise<MoneyVendor> {
  const requests: MoneyVendor['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answer(req, res, Buffer.concat(chunks)));
  });
  server.keepAliveTimeout = 60_000;

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://mock');
    const path = url.pathname;
    const key = keyOf(req, url);
    const body = JSON.parse(raw.toString('utf8') || '{}') as Json;
    requests.push({ path, key, body });
    const p = planOf(path, key, body);
    const streamed = path.includes(':streamGenerateContent') || body.stream === true;
    if (!streamed) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(plainAnswer(path, p, body)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send: Send = async (event, data) => {
      if (res.destroyed) return false;
      res.write(
        `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
      );
      if (p.slow) await new Promise((r) => setTimeout(r, SLOW_EVENT_MS));
      return !res.destroyed;
    };
    if (path === '/v1/messages') await streamAnthropic(p, body, send);
    else if (path.includes(':streamGenerateContent')) await streamGemini(p, send);
    else await streamOpenAI(p, body, send);
    res.end();
  }

  const { url, close } = await listenLocally(server);
  return { url, requests, close };
}
