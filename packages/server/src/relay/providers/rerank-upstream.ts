import type { Dispatcher } from 'undici';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { errorMessageOf } from '../forward-upstream.js';
import type { CancelSignal } from '../services.js';
import { cohereRerank } from './cohere/rerank.js';
import { jinaRerank, type RerankAnswer, type RerankRequest, type RerankUpstream } from './jina/rerank.js';

export type { RerankAnswer, RerankRequest, RerankUpstream } from './jina/rerank.js';

const COHERE = 34;

/**
 * The rerank upstream of a channel type: Cohere's own API for Cohere channels; Jina's shape (at the vendor's
 * OpenAI-compatible prefix) for Jina and every other type.
 */
export const rerankUpstreamFor = (type: number): RerankUpstream => (type === COHERE ? cohereRerank : jinaRerank);

export type RerankOutcome = { ok: true; answer: RerankAnswer } | { ok: false; status: number; message: string; body: string };

/** Sends one rerank call to a channel and reads its answer into Jina's shape (errors with the upstream's message). */
export async function callRerank(agent: Dispatcher, channel: CachedChannel, key: string, r: RerankRequest, signal?: CancelSignal): Promise<RerankOutcome> {
  const up = rerankUpstreamFor(channel.type);
  const { url, headers } = up.target(channel, key);
  const answer = await agent.request({ origin: url.origin, path: url.pathname + url.search, method: 'POST', headers, body: JSON.stringify(up.requestBody(r)), signal });
  const text = await answer.body.text();
  if (answer.statusCode >= 400) return { ok: false, status: answer.statusCode, message: errorMessageOf(text, answer.statusCode), body: text.slice(0, 65536) };
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { ok: false, status: 502, message: 'upstream answered with invalid JSON', body: text.slice(0, 2000) };
  }
  return { ok: true, answer: up.answer(json, r) };
}
