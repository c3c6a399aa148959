import http from 'node:http';
import { listenLocally } from './local-server.js';
import { answerMedia, type MediaUpload } from './mock-media.js';
import { answerAnthropic, answerGemini } from './mock-native.js';
import { answerVendor, vendorOpenAIPath } from './mock-vendors.js';

/** How the mock answers requests made with one API key. */
export interface MockBehavior {
  /** Answer this status with an OpenAI error body instead of a completion. */
  failStatus?: number;
  failMessage?: string;
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
  /** Anthropic and Gemini answers: cache-write tokens (cache_creation_input_tokens). */
  cacheWriteTokens?: number;
  /** Anthropic answers: web searches Anthropic ran (usage.server_tool_use.web_search_requests). */
  webSearches?: number;
  /** Anthropic and Gemini answers: reasoning sent before the text (a signed thinking block / a thought part). */
  thinking?: string;
  /** Content pieces of a streamed answer (also joined for a non-streamed one). */
  pieces?: string[];
  /** Delay between stream chunks, ms. */
  chunkDelayMs?: number;
  /** OpenAI answers: extra usage details (audio_tokens, image_tokens) of the prompt and of the completion. */
  promptDetails?: Record<string, number>;
  completionDetails?: Record<string, number>;
  /** Leave usage out (non-stream body and stream). */
  omitUsage?: boolean;
  /** Delay before answering, ms. */
  delayMs?: number;
}

export interface MockUpstream {
  url: string;
  port: number;
  /** Requests received, newest last (method, path, key, parsed body, headers). */
  requests: {
    method: string;
    path: string;
    key: string;
    body: Record<string, unknown>;
    headers: http.IncomingHttpHeaders;
    /** The request target with its query. */
    url: string;
  }[];
  behaviors: Map<string, MockBehavior>;
  /** Multipart uploads received (images edits, transcriptions, translations), newest last. */
  uploads: MediaUpload[];
  close(): Promise<void>;
}

const DEFAULT: Required<Pick<MockBehavior, 'promptTokens' | 'completionTokens' | 'pieces'>> = {
  promptTokens: 12,
  completionTokens: 5,
  pieces: ['Hello', ' from', ' the', ' mock', '!'],
};

function chatChunk(model: string, content: string | null, finish: string | null) {
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model,
    choices: [{ index: 0, delta: content === null ? {} : { role: 'assistant', content }, finish_reason: finish }],
  };
}

/**
 * A mock OpenAI-format upstream (real HTTP on 127.0.0.1): chat completions (plain and SSE with the usage
 * chunk when asked), completions, embeddings, moderations and models. Behaviour is chosen by the API key.
 */
export async function startMockUpstream(opts: { record?: boolean } = {}): Promise<MockUpstream> {
  const requests: MockUpstream['requests'] = [];
  const behaviors = new Map<string, MockBehavior>();
  const uploads: MediaUpload[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answer(req, res, Buffer.concat(chunks)));
  });
  server.keepAliveTimeout = 60_000;

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) {
    const key =
      (req.headers.authorization ?? '').replace(/^Bearer /, '') ||
      String(req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? '');
    let body: Record<string, unknown>;
    try {
      body =
        raw.length && !String(req.headers['content-type'] ?? '').startsWith('multipart/')
          ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>)
          : {};
    } catch {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'bad json', type: 'invalid_request_error' } }));
      return;
    }
    const fullPath = (req.url ?? '').split('?')[0]!;
    if (opts.record !== false)
      requests.push({ method: req.method ?? '', path: fullPath, key, body, headers: req.headers, url: req.url ?? '' });
    const b = { ...DEFAULT, ...(behaviors.get(key) ?? {}) };
    if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
    if (b.failStatus) {
      res.writeHead(b.failStatus, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: b.failMessage ?? `mock failure ${b.failStatus} for key ${key}`,
            type: 'server_error',
            code: null,
          },
        }),
      );
      return;
    }
    if (answerVendor(req, res, raw, fullPath, body, b)) return;
    // OpenAI-compatible vendors under their own prefixes are answered as /v1/…
    const path = vendorOpenAIPath(fullPath) ?? fullPath;
    if (await answerMedia(req, res, raw, uploads)) return;
    if (path === '/v1/messages') return answerAnthropic(res, body, b);
    if (/^\/v1(beta)?\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path)) return answerGemini(res, path, b);
    const model = String(body.model ?? 'unknown');
    const usage = {
      prompt_tokens: b.promptTokens,
      completion_tokens: b.completionTokens,
      total_tokens: b.promptTokens + b.completionTokens,
      ...(b.cachedTokens || b.promptDetails
        ? { prompt_tokens_details: { cached_tokens: b.cachedTokens ?? 0, ...b.promptDetails } }
        : {}),
      ...(b.completionDetails ? { completion_tokens_details: b.completionDetails } : {}),
    };
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data: [{ id: 'gpt-4o-mini', object: 'model', created: 1, owned_by: 'mock' }],
        }),
      );
      return;
    }
    if (path === '/v1/chat/completions' && body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
      for (const piece of b.pieces) {
        if (res.destroyed) return;
        send(chatChunk(model, piece, null));
        if (b.chunkDelayMs) await new Promise((r) => setTimeout(r, b.chunkDelayMs));
      }
      send(chatChunk(model, null, 'stop'));
      const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
      if (wantsUsage && !b.omitUsage)
        send({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1700000000, model, choices: [], usage });
      res.end('data: [DONE]\n\n');
      return;
    }
    let out: unknown;
    if (path === '/v1/chat/completions') {
      out = {
        id: 'chatcmpl-mock',
        object: 'chat.completion',
        created: 1700000000,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: b.pieces.join('') }, finish_reason: 'stop' }],
        ...(b.omitUsage ? {} : { usage }),
      };
    } else if (path === '/v1/completions') {
      out = {
        id: 'cmpl-mock',
        object: 'text_completion',
        created: 1700000000,
        model,
        choices: [{ index: 0, text: b.pieces.join(''), finish_reason: 'stop' }],
        usage,
      };
    } else if (path === '/v1/embeddings') {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      out = {
        object: 'list',
        data: inputs.map((_, i) => ({ object: 'embedding', index: i, embedding: [0.1, 0.2, 0.3] })),
        model,
        usage: { prompt_tokens: b.promptTokens, total_tokens: b.promptTokens },
      };
    } else if (path === '/v1/moderations') {
      out = { id: 'modr-mock', model, results: [{ flagged: false, categories: {}, category_scores: {} }] };
    } else {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `mock has no ${path}`, type: 'invalid_request_error' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
  }

  const { url, port, close } = await listenLocally(server);
  return { url, port, requests, behaviors, uploads, close };
}
