// Every HTTP call a task platform makes to its upstream (Midjourney, Suno, video vendors) goes through here.
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { createUpstreamAgent } from '../upstream/agent.js';

/** A submit waits this long for the whole answer (new-api waits 60 s for a Midjourney submit). */
export const TASK_SUBMIT_TIMEOUT_MS = 60_000;
/** A poll or a small read (fetch, image-seed) waits this long for the whole answer. */
export const TASK_FETCH_TIMEOUT_MS = 30_000;
/** A streamed result (a video's bytes): headers within this… */
export const TASK_STREAM_HEADERS_TIMEOUT_MS = 30_000;
/** …and at most this long between two chunks of its body. */
export const TASK_STREAM_IDLE_TIMEOUT_MS = 60_000;
/** Largest JSON answer read from a task upstream; a longer one is a failed call. */
export const TASK_ANSWER_MAX_BYTES = 8 * 1024 * 1024;
/** Connections per upstream origin for task calls. */
const TASK_CONNECTIONS = 64;

let agent: Dispatcher | undefined;
/** One keep-alive pool per upstream origin for every task call (created on first use). */
const taskAgent = (): Dispatcher =>
  (agent ??= createUpstreamAgent({
    bodyTimeoutMs: TASK_STREAM_IDLE_TIMEOUT_MS,
    headersTimeoutMs: TASK_STREAM_HEADERS_TIMEOUT_MS,
    connections: { maxConnsPerHost: TASK_CONNECTIONS },
  }));

export interface TaskHttpOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON (content-type set). */
  json?: unknown;
  /** A raw body (a multipart form streamed from its spool), with its length when known. */
  body?: Readable | Buffer;
  /** Whole-call limit; TASK_FETCH_TIMEOUT_MS when absent. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** An upstream's answer: its status, its text (capped) and that text as JSON when it is JSON. */
export interface TaskHttpAnswer {
  status: number;
  text: string;
  json: unknown;
}

/** Raised when the answer is longer than TASK_ANSWER_MAX_BYTES. */
export class TaskAnswerTooLarge extends Error {}

function signalOf(timeoutMs: number, signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > TASK_ANSWER_MAX_BYTES) {
      body.destroy();
      throw new TaskAnswerTooLarge(`the upstream answer is larger than ${TASK_ANSWER_MAX_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const parseJson = (text: string): unknown => {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** One call whose answer is read whole (JSON or text). Throws when the upstream cannot be reached or times out. */
export async function taskRequest(url: string, o: TaskHttpOptions = {}): Promise<TaskHttpAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
  let body: string | Buffer | Readable | undefined = o.body;
  if (o.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(o.json);
  }
  const res = await request(url, {
    method: o.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    dispatcher: taskAgent(),
    signal: signalOf(o.timeoutMs ?? TASK_FETCH_TIMEOUT_MS, o.signal),
  });
  const text = await readCapped(res.body);
  return { status: res.statusCode, text, json: parseJson(text) };
}

/** A streamed answer: the caller pipes `body` on (and must consume or destroy it). */
export interface TaskStream {
  status: number;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: Readable;
}

/** A GET whose body is passed through without being held (a video's bytes); idle-timed, not whole-call-timed. */
export async function taskStream(
  url: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<TaskStream> {
  const res = await request(url, {
    method: 'GET',
    headers,
    dispatcher: taskAgent(),
    headersTimeout: TASK_STREAM_HEADERS_TIMEOUT_MS,
    bodyTimeout: TASK_STREAM_IDLE_TIMEOUT_MS,
    signal,
  });
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  return {
    status: res.statusCode,
    contentType: one(res.headers['content-type']),
    contentLength: one(res.headers['content-length']),
    body: res.body,
  };
}
