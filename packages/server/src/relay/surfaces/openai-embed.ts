import { forwardOpenAIChannel } from '../upstream/forward.js';
import { openAIInbound } from '../entry/inbound.js';
import { parseData } from '../ir/json-data.js';
import { openAIPaths } from '../providers/openai/request.js';
import type { RelayRequest } from '../entry/request.js';
import type { CallUsage } from '../billing/usage.js';
import { invalidParam } from '../entry/validate.js';
import { geminiEmbedUsage } from './gemini-embed.js';
import { cannotServe, forwardBuffered, type Answer, type Metered } from './upstream.js';
import { vertexEmbed } from './vertex-embed.js';
import type { AttemptResult, Body, InboundCall, SurfaceAttempt } from '../pipeline/types.js';

/** Bytes of one Float32 value in a base64 embedding. */
const FLOAT32_BYTES = 4;

/** The texts of `input`: a string or strings; token arrays cannot be embedded by Gemini. */
function textsOf(input: unknown): string[] {
  const list = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [];
  if (list.length === 0) throw invalidParam('input', 'input must not be empty');
  return list.map((x, i) => {
    if (typeof x === 'string') return x;
    const at = typeof input === 'string' || typeof x === 'number' ? 'input' : `input[${i}]`;
    throw invalidParam(at, `${at} is a token array; this model's embeddings take text only, send strings`);
  });
}

/** `dimensions` as Gemini's outputDimensionality (a positive integer), when set. */
function dimensionsOf(body: Body): number | undefined {
  const d = body.dimensions;
  if (d === undefined || d === null) return undefined;
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 1)
    throw invalidParam('dimensions', 'dimensions must be a positive integer');
  return d;
}

function encodingOf(body: Body): 'float' | 'base64' {
  const e = body.encoding_format;
  if (e === undefined || e === null || e === 'float') return 'float';
  if (e === 'base64') return 'base64';
  throw invalidParam('encoding_format', "encoding_format must be 'float' or 'base64'");
}

/** A vector as OpenAI's base64 encoding: its Float32 values, little-endian. */
function base64Floats(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * FLOAT32_BYTES));
  values.forEach((v, i) => view.setFloat32(i * FLOAT32_BYTES, v, true));
  return Buffer.from(view.buffer).toString('base64');
}

/** OpenAI's embedding list for vectors in the caller's encoding. */
function openAIList(vectors: number[][], usage: CallUsage, model: string, encoding: 'float' | 'base64'): string {
  const data = vectors.map((values, index) => ({
    object: 'embedding',
    index,
    embedding: encoding === 'base64' ? base64Floats(values) : values,
  }));
  return JSON.stringify({
    object: 'list',
    data,
    model,
    usage: { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens },
  });
}

/** Gemini channel: batchEmbedContents with one request per input (Vertex AI: predict), the answer back in OpenAI's list shape. */
function toGemini(a: SurfaceAttempt, body: Body, requestedModel: string): Promise<AttemptResult> {
  const texts = textsOf(body.input);
  const dimensions = dimensionsOf(body);
  const encoding = encodingOf(body);
  const shape = (vectors: number[][], usage: CallUsage) => openAIList(vectors, usage, requestedModel, encoding);
  // A signed Gemini adaptor is Vertex AI, whose embeddings are a predict call.
  if (a.adaptor.prepare)
    return vertexEmbed(
      a,
      texts.map((content) => ({ content })),
      dimensions,
      shape,
    );
  const t = a.adaptor.target({
    channel: a.channel,
    key: a.key,
    model: a.model,
    stream: false,
    openaiPath: '',
    options: a.ctx.options,
  });
  // The target's URL is the adaptor's (read-only): the method goes into the path sent, not into the URL.
  const path = t.url.pathname.replace(/:generateContent$/, ':batchEmbedContents') + t.url.search;
  const requests = texts.map((text) => ({
    model: `models/${a.model}`,
    content: { parts: [{ text }] },
    ...(dimensions ? { outputDimensionality: dimensions } : {}),
  }));
  return forwardBuffered(
    a,
    { origin: t.url.origin, path, headers: t.headers },
    JSON.stringify({ requests }),
    (answer: Answer): Metered | { error: string } => {
      const json = parseData(answer.text) as { embeddings?: { values?: number[] }[] } | undefined;
      if (!json || !Array.isArray(json.embeddings) || json.embeddings.length !== texts.length)
        return { error: 'upstream answered without one embedding per input' };
      const vectors = json.embeddings.map((e) => (Array.isArray(e.values) ? e.values : []));
      const usage = geminiEmbedUsage(json as Record<string, unknown>, texts);
      return { out: shape(vectors, usage), contentType: 'application/json', usage };
    },
  );
}

const openAIEmbeddings = openAIInbound('embeddings');

/** POST /v1/embeddings: relayed as it is to OpenAI-format channels, converted for Gemini channels. */
export function openAIEmbeddingsInbound(req: RelayRequest): InboundCall {
  const call = openAIEmbeddings(req);
  return {
    ...call,
    surface: {
      forward(a) {
        // OpenAI-format channel: the call as the core relays it (body rewritten for the channel, answer passed through).
        if (a.adaptor.format === 'openai')
          return forwardOpenAIChannel(
            a.ctx,
            {
              call,
              channel: a.channel,
              key: a.key,
              upstreamModel: a.model,
              res: a.res,
              signal: a.signal,
              started: a.started,
              captureAnswer: false,
              receipt: a.receipt,
            },
            a.adaptor,
            'embeddings',
          );
        if (a.adaptor.format === 'gemini') return toGemini(a, call.body, call.model);
        return Promise.resolve(cannotServe(a, openAIPaths.embeddings));
      },
    },
  };
}
