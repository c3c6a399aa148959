import { request } from 'undici';
import { channelModel, chooseKey } from '../../core/routing/channel-cache.js';
import type { RelayContext } from '../pipeline/services.js';

/** The longest an embedding of a prompt may take: past it the call goes on as a miss. */
const EMBED_TIMEOUT_MS = 10_000;

interface EmbeddingsAnswer {
  data?: { embedding?: unknown }[];
}

/**
 * The embedding of a prompt (semantic mode), from a channel of `group` serving `model`, asked directly in OpenAI's
 * embeddings format (`<base URL>/v1/embeddings`, the channel's key as a bearer token, its model mapping applied).
 * Undefined when no channel serves the model or the upstream fails: the call is then an ordinary miss. The
 * embedding is the operator's cost: it is not billed to the caller.
 */
export async function embedPrompt(
  ctx: RelayContext,
  group: string,
  model: string,
  text: string,
): Promise<Float32Array | undefined> {
  const ch = ctx.channelCache.select(group, model, new Set(), 0, 0);
  const keyIndex = ch && chooseKey(ch, Math.random, ctx.breakers);
  if (!ch || keyIndex === undefined) return undefined;
  const mapped = channelModel(ch, model);
  if ('error' in mapped) return undefined;
  try {
    const res = await request(`${ch.baseUrl}/v1/embeddings`, {
      method: 'POST',
      dispatcher: ctx.relay.upstream.for(ch),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ch.keys[keyIndex]}` },
      body: JSON.stringify({ model: mapped.upstream, input: text }),
      headersTimeout: EMBED_TIMEOUT_MS,
      bodyTimeout: EMBED_TIMEOUT_MS,
    });
    const answer = (await res.body.json()) as EmbeddingsAnswer;
    const values = res.statusCode === 200 ? answer.data?.[0]?.embedding : undefined;
    if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'number')) return undefined;
    return Float32Array.from(values as number[]);
  } catch (err) {
    ctx.log.warn({ err, channel: ch.id }, 'response cache: prompt embedding failed');
    return undefined;
  }
}
