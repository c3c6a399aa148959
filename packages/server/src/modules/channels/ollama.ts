import { PassThrough, type Readable } from 'node:stream';
import { ChannelType, channelTypeById, ErrorCode } from '@tollway/shared';
import { Agent, request, type Dispatcher } from 'undici';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError, coded } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import type { ChannelRow } from '../../core/routing/channel-row.js';
import { redactKeys } from './status.js';

/** Model management of an Ollama server (its documented /api/pull, /api/delete and /api/version). */
const QUICK_MS = 20_000;
/** A pull downloads the model before it answers: its answer (or, streamed, each progress line) may take this long. */
const PULL_MS = 30 * 60_000;
const STREAM_IDLE_MS = 5 * 60_000;
const MAX_ANSWER = 1024 * 1024;
const MAX_LINE = 64 * 1024;
const REASON_CHARS = 300;

export const ollamaModelBody = z.object({
  channel_id: z.number().int().positive(),
  model_name: z.string().trim().min(1, 'model_name is required').max(255),
});
export type OllamaModelBody = z.infer<typeof ollamaModelBody>;

/** One progress line of a streamed pull, with the fields new-api forwards. */
export interface PullProgress {
  status?: string;
  digest?: string;
  total?: number;
  completed?: number;
}

interface Target {
  base: string;
  key: string;
}

const failed = (reason: string, key: string): ApiError => {
  const r = redactKeys(reason, [key]).slice(0, REASON_CHARS);
  return coded(ErrorCode.OllamaFailed, `Ollama: ${r}`, { reason: r }, 502);
};

/** A failure of the call itself, said without the key. */
function callFailure(err: unknown, key: string): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: unknown }).code;
  return failed(`cannot reach the server${typeof code === 'string' ? ` (${code})` : ''}`, key);
}

/** The `error` of an Ollama error answer ({"error": "..."}), else its status. */
function errorOf(status: number, text: string): string {
  try {
    const e = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof e === 'string' && e) return e;
  } catch {
    /* not JSON: the status says it */
  }
  return `HTTP ${status}`;
}

async function readText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER) {
      body.destroy();
      throw new Error('the answer is too large');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const progressOf = (o: Record<string, unknown>): PullProgress => {
  const p: PullProgress = {};
  if (typeof o.status === 'string') p.status = o.status;
  if (typeof o.digest === 'string') p.digest = o.digest;
  if (typeof o.total === 'number') p.total = o.total;
  if (typeof o.completed === 'number') p.completed = o.completed;
  return p;
};

/**
 * The Ollama server of an Ollama channel (type 4): its base URL (or the type's default, localhost:11434) and first
 * key. Like the relay's calls to the same channel, these go where the channel points: a channel's address is the
 * administrators' choice (docs/operating/security.md), and an Ollama is usually on the gateway's own host, which
 * the outbound guard, kept for addresses fetched on a user's behalf, rightly refuses.
 */
export class OllamaAdmin {
  constructor(private readonly dispatcher: Dispatcher) {}

  /** The server of a channel; refused for a channel of another type. */
  target(row: ChannelRow): Target {
    if (row.type !== ChannelType.Ollama)
      throw coded(ErrorCode.OllamaOnly, 'this operation is only supported for Ollama channels');
    const base = (row.base_url || channelTypeById.get(ChannelType.Ollama)!.baseUrl).replace(/\/+$/, '');
    return { base, key: (row.key.split('\n')[0] ?? '').trim() };
  }

  private async call(
    t: Target,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body: unknown,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${t.base}${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(t.key ? { authorization: `Bearer ${t.key}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      });
    } catch (err) {
      throw callFailure(err, t.key);
    }
    if (res.statusCode >= 400) {
      const text = await readText(res.body).catch(() => '');
      throw failed(errorOf(res.statusCode, text), t.key);
    }
    return res;
  }

  private async json(res: Dispatcher.ResponseData, t: Target): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await readText(res.body);
    } catch (err) {
      throw callFailure(err, t.key);
    }
    try {
      const v = JSON.parse(text || '{}') as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* refused below */
    }
    throw failed('the answer is not a JSON object', t.key);
  }

  /** GET /api/version: the server's version. */
  async version(row: ChannelRow): Promise<string> {
    const t = this.target(row);
    const v = (await this.json(await this.call(t, 'GET', '/api/version', undefined, QUICK_MS), t)).version;
    if (typeof v !== 'string') throw failed('the version answer has no version', t.key);
    return v;
  }

  /** DELETE /api/delete {model}. */
  async remove(row: ChannelRow, model: string): Promise<void> {
    const t = this.target(row);
    await (await this.call(t, 'DELETE', '/api/delete', { model }, QUICK_MS)).body.dump();
  }

  /** POST /api/pull {model, stream:false}: answers once the model is there. */
  async pull(row: ChannelRow, model: string): Promise<void> {
    const t = this.target(row);
    const answer = await this.json(await this.call(t, 'POST', '/api/pull', { model, stream: false }, PULL_MS), t);
    if (typeof answer.error === 'string') throw failed(answer.error, t.key);
  }

  /**
   * POST /api/pull with streaming: the channel is checked first (a refusal is an ordinary answer), then an SSE
   * stream of `data: {progress}` events, a last `data: {"message"}` or `data: {"error"}` event and `data: [DONE]`.
   */
  pullStream(row: ChannelRow, model: string, closed: AbortSignal): Readable {
    const t = this.target(row);
    const out = new PassThrough();
    const send = (v: unknown) => out.write(`data: ${typeof v === 'string' ? v : JSON.stringify(v)}\n\n`);
    const abort = new AbortController();
    closed.addEventListener('abort', () => abort.abort(), { once: true });
    void (async () => {
      let error: string | undefined;
      try {
        const res = await this.call(t, 'POST', '/api/pull', { model, stream: true }, STREAM_IDLE_MS, abort.signal);
        let buf = '';
        const line = (text: string) => {
          if (!text.trim()) return;
          let o: Record<string, unknown>;
          try {
            o = JSON.parse(text) as Record<string, unknown>;
          } catch {
            return;
          }
          if (typeof o.error === 'string') error = redactKeys(o.error, [t.key]).slice(0, REASON_CHARS);
          else send(progressOf(o));
        };
        for await (const chunk of res.body) {
          buf += (chunk as Buffer).toString('utf8');
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            line(buf.slice(0, nl));
            buf = buf.slice(nl + 1);
          }
          if (buf.length > MAX_LINE) throw failed('a progress line is too long', t.key);
        }
        line(buf);
      } catch (err) {
        if (closed.aborted) return void out.end();
        const e = callFailure(err, t.key);
        error = String(e.detail.params?.reason ?? e.message);
      }
      send(error === undefined ? { message: `Model ${model} pulled successfully` } : { error });
      send('[DONE]');
      out.end();
    })();
    return out;
  }
}

/** Connections to Ollama servers: their own pool, kept apart from the relay's. */
const OLLAMA_CONNECTIONS_PER_ORIGIN = 4;

export const ollamaOf = perContext(
  (_ctx: AppContext) => new OllamaAdmin(new Agent({ connections: OLLAMA_CONNECTIONS_PER_ORIGIN })),
);
