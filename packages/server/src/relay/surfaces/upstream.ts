import type { Readable } from 'node:stream';
import { errorMessageOf, forwardOpenAI } from '../forward.js';
import { pingIntervalMs } from '../keep-alive.js';
import { countTextTokens } from '../token-count.js';
import type { CallUsage } from '../usage.js';
import type { AttemptResult, SurfaceAttempt } from '../types.js';

const MAX_ANSWER = 64 * 1024 * 1024;

/** Where one upstream call of a surface goes: origin, path and headers. */
export interface SurfaceTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

/** The failure of a channel that cannot serve a surface (another channel may). */
export const cannotServe = (a: SurfaceAttempt, what: string): AttemptResult => ({
  kind: 'failed',
  status: 501,
  message: `channel #${a.channel.id} (type ${a.channel.type}) does not serve ${what}`,
  body: '',
});

/** The OpenAI path of a surface on an OpenAI-format channel (OpenAI-compatible vendors, Azure deployments). */
export function openAITarget(a: SurfaceAttempt, openaiPath: string, contentType = 'application/json'): SurfaceTarget | undefined {
  if (a.adaptor.format !== 'openai') return undefined;
  const t = a.adaptor.target({ channel: a.channel, key: a.key, model: a.model, stream: false, openaiPath, options: a.ctx.options });
  return { origin: t.url.origin, path: t.url.pathname + t.url.search, headers: Object.assign({}, t.headers, { 'content-type': contentType }) };
}

/**
 * Passes the upstream answer through as it arrives (images, speech audio, streamed image events) with the
 * generic forwarder; `meter` turns the usage read on the way (if any) into what is billed.
 */
export async function forwardPassThrough(
  a: SurfaceAttempt,
  t: SurfaceTarget,
  body: string | Readable,
  stream: boolean,
  meter: (reported: CallUsage | undefined) => CallUsage,
): Promise<AttemptResult> {
  const result = await forwardOpenAI(a.ctx.relay.agent, { origin: t.origin, path: t.path, headers: t.headers, body, stream, clientWantsUsage: true, pingMs: stream ? pingIntervalMs(a.ctx.options) : 0 }, a.res, a.signal, countTextTokens, a.started);
  if (result.kind !== 'relayed') return result;
  return { ...result, usage: meter(result.usage), cut: false };
}

/** A whole upstream answer, read for metering or conversion. */
export interface Answer {
  contentType: string;
  text: string;
}

/** What goes back to the client and what is billed. */
export interface Metered {
  out: string;
  contentType: string;
  usage: CallUsage;
}

/**
 * Sends one call and reads the whole answer (small JSON or text: transcripts, rerank results, embeddings),
 * which `meter` may convert; then answers the client. Error statuses come back as failures (retryable).
 */
export async function forwardBuffered(
  a: SurfaceAttempt,
  t: SurfaceTarget,
  body: string | Readable,
  meter: (answer: Answer) => Metered | { error: string },
): Promise<AttemptResult> {
  const answer = await a.ctx.relay.agent.request({ origin: t.origin, path: t.path, method: 'POST', headers: t.headers, body, signal: a.signal });
  let text = '';
  for await (const chunk of answer.body) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > MAX_ANSWER) {
      answer.body.destroy();
      return { kind: 'failed', status: 502, message: 'upstream answer too large', body: '' };
    }
  }
  if (answer.statusCode >= 400) return { kind: 'failed', status: answer.statusCode, message: errorMessageOf(text, answer.statusCode), body: text.slice(0, 65536) };
  const metered = meter({ contentType: String(answer.headers['content-type'] ?? ''), text });
  if ('error' in metered) return { kind: 'failed', status: 502, message: metered.error, body: text.slice(0, 2000) };
  const firstByteMs = Date.now() - a.started;
  a.res.writeHead(200, { 'content-type': metered.contentType, 'content-length': Buffer.byteLength(metered.out) });
  a.res.end(metered.out);
  return { kind: 'relayed', status: 200, usage: metered.usage, countedCompletion: 0, firstByteMs, cut: false };
}

/** Usage counted by us from text we sent (prompt) and text we got (completion). */
export const countedUsage = (prompt: string, completion = '', units?: number): CallUsage => ({
  promptTokens: countTextTokens(prompt),
  completionTokens: countTextTokens(completion),
  reported: false,
  ...(units !== undefined ? { units } : {}),
});
