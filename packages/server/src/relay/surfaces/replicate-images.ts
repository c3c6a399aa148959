import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import { guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy, OutboundBlockedError } from '../../lib/outbound-guard.js';
import { baseUrlOf } from '../providers/base-url.js';
import { replicatePredictionUrl } from '../providers/replicate/adaptor.js';
import { sendWhole } from '../upstream/forward-upstream.js';
import type { CallUsage } from '../billing/usage.js';
import type { AttemptResult, Body, SurfaceAttempt } from '../pipeline/types.js';

/**
 * `/v1/images/generations` on a Replicate channel, as new-api serves it: one prediction of the model
 * (`Prefer: wait`), polled at `/v1/predictions/{id}` while it has not ended, its output URLs answered as OpenAI's
 * image response. Billed like every image call (per image at the model's price).
 */

/** Between two polls of a prediction still running. */
export const REPLICATE_POLL_MS = 500;
/** A prediction not ended by then fails the call. */
export const REPLICATE_WAIT_MS = 5 * 60_000;
/** Largest answer read from Replicate. */
const ANSWER_MAX = 4 * 1024 * 1024;
/** Largest image downloaded for a `b64_json` answer. */
const IMAGE_MAX = 32 * 1024 * 1024;
const UPSTREAM_FAILED = 502;
const TIMED_OUT = 504;
const RUNNING = new Set(['starting', 'processing']);
const OUTPUT_MIN = 256;
const OUTPUT_MAX = 1440;
const OUTPUT_STEP = 32;
/** Aspect ratios FLUX takes by name; any other size is sent as custom width and height. */
const NAMED_RATIOS = new Set(['1:1', '16:9', '9:16', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3']);

interface Prediction {
  id?: string;
  status?: string;
  output?: unknown;
  error?: unknown;
  detail?: string;
  title?: string;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const clampDim = (v: number) => {
  const c = Math.min(OUTPUT_MAX, Math.max(OUTPUT_MIN, v));
  return Math.min(OUTPUT_MAX, Math.max(OUTPUT_MIN, Math.round(c / OUTPUT_STEP) * OUTPUT_STEP));
};

/** An OpenAI size (`WxH`) as FLUX's aspect ratio, or custom dimensions (multiples of 32 within 256–1440). */
export function fluxSize(size: string): Record<string, unknown> | undefined {
  const m = /^\s*(\d+)\s*x\s*(\d+)\s*$/.exec(size);
  if (!m) return undefined;
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (!w || !h) return undefined;
  const g = gcd(w, h);
  const ratio = w === 1792 && h === 1024 ? '16:9' : w === 1024 && h === 1792 ? '9:16' : `${w / g}:${h / g}`;
  if (NAMED_RATIOS.has(ratio)) return { aspect_ratio: ratio };
  return { aspect_ratio: 'custom', width: clampDim(w), height: clampDim(h) };
}

/** The prediction's input from an OpenAI image request; the caller's `input` object goes over it. */
export function replicateInput(body: Body): Record<string, unknown> {
  const input: Record<string, unknown> = { prompt: body.prompt };
  if (typeof body.size === 'string') Object.assign(input, fluxSize(body.size));
  if (typeof body.output_format === 'string' && body.output_format) input.output_format = body.output_format;
  const n = Number(body.n);
  if (Number.isInteger(n) && n > 0) input.num_outputs = n;
  if (typeof body.quality === 'string' && /^(hd|high)$/i.test(body.quality)) input.prompt_upsampling = true;
  if (body.input && typeof body.input === 'object' && !Array.isArray(body.input)) Object.assign(input, body.input);
  return input;
}

/** The output URLs of a prediction (a string or a list of them). */
export function outputUrls(output: unknown): string[] {
  const list = Array.isArray(output) ? output : [output];
  return list.filter((u): u is string => typeof u === 'string' && u.trim() !== '').map((u) => u.trim());
}

/** A prediction's error as text (a string, or an object with message/detail). */
function errorText(p: Prediction): string {
  const e = p.error;
  if (typeof e === 'string' && e) return e;
  if (e && typeof e === 'object') {
    const o = e as { message?: string; detail?: string; code?: string };
    return o.message || o.detail || o.code || 'the prediction failed';
  }
  return p.detail || p.title || 'the prediction failed';
}

async function call(
  agent: Dispatcher,
  url: URL | string,
  o: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; signal: AbortSignal },
  max = ANSWER_MAX,
): Promise<{ status: number; bytes: Buffer; text: string }> {
  const res = await request(url, { ...o, dispatcher: agent });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of res.body as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > max) {
      res.body.destroy();
      throw new Error('the Replicate answer is too large');
    }
    chunks.push(c);
  }
  const bytes = Buffer.concat(chunks);
  return { status: res.statusCode, bytes, text: bytes.toString('utf8') };
}

const parse = (text: string): Prediction => {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Prediction) : {};
  } catch {
    return {};
  }
};

/** A failed attempt (another channel may serve the call). */
export const failed = (status: number, message: string, body = ''): AttemptResult => ({
  kind: 'failed',
  status,
  message,
  body,
});

/**
 * The images of a `b64_json` answer, downloaded as new-api does — through the SSRF guard (the fetch settings),
 * since the URLs come from the upstream's answer. A failure is the call's.
 */
async function downloadAll(a: SurfaceAttempt, urls: string[], signal: AbortSignal): Promise<string[] | AttemptResult> {
  const guarded = guardedDispatcher(() => fetchPolicy(a.ctx.options));
  const out: string[] = [];
  for (const url of urls) {
    try {
      const got = await call(guarded, url, { method: 'GET', headers: {}, signal }, IMAGE_MAX);
      if (got.status !== 200) return failed(UPSTREAM_FAILED, `downloading a Replicate image answered ${got.status}`);
      out.push(got.bytes.toString('base64'));
    } catch (err) {
      if (err instanceof OutboundBlockedError)
        return failed(UPSTREAM_FAILED, `a Replicate image URL is refused by the fetch settings: ${err.message}`);
      throw err;
    }
  }
  return out;
}

/**
 * One image call on a Replicate channel: the prediction made, waited for, answered; `meter` is what it bills.
 * `upload` (an edit's image) is sent to Replicate's files API first and passed as `image_prompt`.
 */
export async function replicateImages(
  a: SurfaceAttempt,
  body: Body,
  meter: () => CallUsage,
  upload?: (agent: Dispatcher, signal: AbortSignal) => Promise<string | AttemptResult>,
): Promise<AttemptResult> {
  const target = a.adaptor.target({
    channel: a.channel,
    key: a.key,
    model: a.model,
    stream: false,
    openaiPath: '/v1/images/generations',
    options: a.ctx.options,
  });
  const agent = a.ctx.relay.upstream.for(a.channel);
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  a.signal.once('abort', onAbort);
  const deadline = Date.now() + REPLICATE_WAIT_MS;
  try {
    const input = replicateInput(body);
    if (upload) {
      const uploaded = await upload(agent, abort.signal);
      if (typeof uploaded !== 'string') return uploaded;
      input.image_prompt = uploaded;
    }
    const sent = await call(agent, target.url, {
      method: 'POST',
      headers: target.headers,
      body: JSON.stringify({ input }),
      signal: abort.signal,
    });
    let p = parse(sent.text);
    if (sent.status >= 400) return failed(sent.status, errorText(p), sent.text.slice(0, 2000));
    const poll = {
      method: 'GET' as const,
      headers: { authorization: target.headers.authorization!, accept: 'application/json' },
    };
    while (RUNNING.has(p.status ?? '')) {
      if (!p.id) return failed(UPSTREAM_FAILED, 'Replicate answered a running prediction without its id');
      if (Date.now() > deadline) return failed(TIMED_OUT, 'the Replicate prediction did not finish in time');
      await sleep(REPLICATE_POLL_MS, undefined, { signal: abort.signal });
      const got = await call(agent, replicatePredictionUrl(baseUrlOf(a.channel), p.id), {
        ...poll,
        signal: abort.signal,
      });
      // A passing upstream hiccup (429, 5xx) is polled again; any other refusal ends the call.
      if (got.status === 429 || got.status >= 500) continue;
      if (got.status >= 400) return failed(got.status, errorText(parse(got.text)), got.text.slice(0, 2000));
      p = parse(got.text);
    }
    if (p.status && p.status !== 'succeeded')
      return failed(UPSTREAM_FAILED, errorText(p), JSON.stringify(p).slice(0, 2000));
    const urls = outputUrls(p.output);
    if (!urls.length) return failed(UPSTREAM_FAILED, 'the Replicate prediction has no output');
    let data: Record<string, string>[] = urls.map((url) => ({ url }));
    if (body.response_format === 'b64_json') {
      const images = await downloadAll(a, urls, abort.signal);
      if (!Array.isArray(images)) return images;
      data = images.map((b64) => ({ b64_json: b64 }));
    }
    const started = a.started;
    sendWhole(a.res, JSON.stringify({ created: Math.floor(Date.now() / 1000), data }));
    return {
      kind: 'relayed',
      status: 200,
      usage: meter(),
      countedCompletion: 0,
      firstByteMs: Date.now() - started,
      cut: false,
    };
  } finally {
    a.signal.removeListener('abort', onAbort);
  }
}
