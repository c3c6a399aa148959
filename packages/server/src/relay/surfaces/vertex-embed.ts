import { parseData } from '../ir/json-data.js';
import { prepareRequest } from '../providers/prepare.js';
import type { CallUsage } from '../billing/usage.js';
import { countedInputsUsage, forwardBuffered, type Answer } from './upstream.js';
import type { AttemptResult, SurfaceAttempt } from '../pipeline/types.js';

/** One text to embed on Vertex AI, with the optional task hints Vertex takes. */
export interface VertexInstance {
  content: string;
  task_type?: string;
  title?: string;
}

interface Prediction {
  embeddings?: { values?: number[]; statistics?: { token_count?: number } };
}

/** Vertex's token counts when every prediction has one, else the texts counted by the gateway. */
function predictionUsage(predictions: Prediction[], texts: string[]): CallUsage {
  const counts = predictions.map((p) => p.embeddings?.statistics?.token_count);
  if (counts.every((n): n is number => typeof n === 'number'))
    return { promptTokens: counts.reduce((s, n) => s + n, 0), completionTokens: 0, reported: true };
  return countedInputsUsage(texts);
}

/**
 * Embeddings on a Vertex AI channel (Gemini models): POST {model URL}:predict with `instances` and
 * `parameters.outputDimensionality`, signed by the channel's adaptor; `shape` writes the vectors in the caller's format.
 */
export async function vertexEmbed(
  a: SurfaceAttempt,
  instances: VertexInstance[],
  dimensions: number | undefined,
  shape: (vectors: number[][], usage: CallUsage) => string,
): Promise<AttemptResult> {
  const call = {
    channel: a.channel,
    key: a.key,
    model: a.model,
    stream: false,
    openaiPath: '',
    options: a.ctx.options,
  };
  const t = a.adaptor.target(call);
  // A copy: a target's URL is the adaptor's, not this call's to change.
  const url = new URL(t.url.href);
  url.pathname = url.pathname.replace(/:generateContent$/, ':predict');
  const body = { instances, ...(dimensions ? { parameters: { outputDimensionality: dimensions } } : {}) };
  const sent = await prepareRequest(a.adaptor, call, url, t.headers, body);
  if ('error' in sent) return { kind: 'failed', status: sent.error.status, message: sent.error.message, body: '' };
  const texts = instances.map((i) => i.content);
  return forwardBuffered(a, sent, sent.body, (answer: Answer) => {
    const json = parseData(answer.text) as { predictions?: Prediction[] } | undefined;
    if (!json || !Array.isArray(json.predictions) || json.predictions.length !== instances.length)
      return { error: 'upstream answered without one embedding per input' };
    const usage = predictionUsage(json.predictions, texts);
    const vectors = json.predictions.map((p) => (Array.isArray(p.embeddings?.values) ? p.embeddings.values : []));
    return { out: shape(vectors, usage), contentType: 'application/json', usage };
  });
}
