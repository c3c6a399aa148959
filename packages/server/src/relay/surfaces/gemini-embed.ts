import type { RelayRequest } from '../entry/request.js';
import { relayErrors } from '../pipeline/errors.js';
import { checkGeminiEmbed, invalidParam, MAX_MODEL_NAME } from '../entry/validate.js';
import { geminiInbound, parseJsonBody } from '../entry/inbound.js';
import { geminiGenerate, geminiModelFromPath } from '../providers/gemini/convert.js';
import { parseData } from '../ir/json-data.js';
import type { CallUsage } from '../billing/usage.js';
import {
  cannotServe,
  countedInputsUsage,
  forwardBuffered,
  openAITarget,
  type Answer,
  type Metered,
} from './upstream.js';
import { vertexEmbed, type VertexInstance } from './vertex-embed.js';
import type { Body, InboundCall, Surface, SurfaceAttempt } from '../pipeline/types.js';

type Method = 'embedContent' | 'batchEmbedContents';
interface EmbedRequest {
  model?: string;
  content?: { parts?: { text?: string }[] };
  taskType?: string;
  title?: string;
  outputDimensionality?: number;
}

const textOf = (r: EmbedRequest): string =>
  (r.content?.parts ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n');

/** The embedding requests of a call: the body itself (embedContent) or its `requests` (batchEmbedContents). */
function requestsOf(body: Body, method: Method): EmbedRequest[] {
  const list = method === 'embedContent' ? [body as EmbedRequest] : (body.requests as EmbedRequest[] | undefined);
  if (!Array.isArray(list) || list.length === 0)
    throw relayErrors.badBody(method === 'embedContent' ? 'content is required' : 'requests must be a non-empty array');
  for (let i = 0; i < list.length; i++) checkGeminiEmbed(list[i], method === 'embedContent' ? '' : `requests[${i}]`);
  return list;
}

/** Gemini usage metadata when the upstream sends it, else the texts counted. */
export function geminiEmbedUsage(json: Record<string, unknown> | undefined, texts: string[]): CallUsage {
  const reported = (json?.usageMetadata as { promptTokenCount?: number } | undefined)?.promptTokenCount;
  return typeof reported === 'number'
    ? { promptTokens: reported, completionTokens: 0, reported: true }
    : countedInputsUsage(texts);
}

/** Native Gemini channel: the same call to {base}/{version}/models/{model}:{method}, the model names mapped. */
function toGemini(a: SurfaceAttempt, body: Body, method: Method, texts: string[]) {
  const t = a.adaptor.target({
    channel: a.channel,
    key: a.key,
    model: a.model,
    stream: false,
    openaiPath: '',
    options: a.ctx.options,
  });
  // The target's URL is the adaptor's (read-only): the method goes into the path sent, not into the URL.
  const path = t.url.pathname.replace(/:generateContent$/, `:${method}`) + t.url.search;
  const upstream: Body =
    method === 'batchEmbedContents'
      ? { ...body, requests: (body.requests as EmbedRequest[]).map((r) => ({ ...r, model: `models/${a.model}` })) }
      : { ...body };
  if (method === 'embedContent' && upstream.model !== undefined) upstream.model = `models/${a.model}`;
  return forwardBuffered(
    a,
    { origin: t.url.origin, path, headers: t.headers },
    JSON.stringify(upstream),
    (answer): Metered => ({
      out: answer.text,
      contentType: 'application/json',
      usage: geminiEmbedUsage(parseData(answer.text), texts),
    }),
  );
}

/** OpenAI-format channel: converted to /v1/embeddings, the answer back to Gemini's shape. */
function toOpenAI(a: SurfaceAttempt, requests: EmbedRequest[], method: Method, texts: string[]) {
  const t = openAITarget(a, '/v1/embeddings');
  if (!t) return Promise.resolve(cannotServe(a, 'Gemini embeddings'));
  const dimensions = requests[0]!.outputDimensionality;
  const upstream = {
    model: a.model,
    input: texts,
    encoding_format: 'float',
    ...(dimensions ? { dimensions } : {}),
    ...a.channel.paramOverride,
  };
  return forwardBuffered(a, t, JSON.stringify(upstream), (answer: Answer) => {
    const json = parseData(answer.text) as
      { data?: { index?: number; embedding?: number[] }[]; usage?: { prompt_tokens?: number } } | undefined;
    if (!json || !Array.isArray(json.data)) return { error: 'upstream answered without embeddings' };
    const values = [...json.data]
      .sort((x, y) => (x.index ?? 0) - (y.index ?? 0))
      .map((d) => ({ values: d.embedding ?? [] }));
    const out = method === 'embedContent' ? { embedding: values[0] ?? { values: [] } } : { embeddings: values };
    const prompt = json.usage?.prompt_tokens;
    const usage: CallUsage =
      typeof prompt === 'number'
        ? { promptTokens: prompt, completionTokens: 0, reported: true }
        : countedInputsUsage(texts);
    return { out: JSON.stringify(out), contentType: 'application/json', usage };
  });
}

/** Vertex AI channel: one predict call with an instance per request (task type and title kept), the vectors in Gemini's shape. */
function toVertex(a: SurfaceAttempt, requests: EmbedRequest[], method: Method) {
  const instances: VertexInstance[] = requests.map((r) => ({
    content: textOf(r),
    ...(r.taskType ? { task_type: r.taskType } : {}),
    ...(r.title ? { title: r.title } : {}),
  }));
  return vertexEmbed(a, instances, requests[0]!.outputDimensionality, (vectors) =>
    JSON.stringify(
      method === 'embedContent'
        ? { embedding: { values: vectors[0] ?? [] } }
        : { embeddings: vectors.map((values) => ({ values })) },
    ),
  );
}

/** POST /v1beta/models/{model}:embedContent and :batchEmbedContents (key in x-goog-api-key or ?key=). */
export function geminiEmbedInbound(req: RelayRequest, model: string, method: Method): InboundCall {
  if (model.length > MAX_MODEL_NAME) throw invalidParam('model', `model must be at most ${MAX_MODEL_NAME} characters`);
  const body = parseJsonBody(req.body);
  const requests = requestsOf(body, method);
  const texts = requests.map(textOf);
  const surface: Surface = {
    forward(a) {
      // A signed Gemini adaptor is Vertex AI, whose embeddings are a predict call.
      if (a.adaptor.format === 'gemini' && a.adaptor.prepare) return toVertex(a, requests, method);
      if (a.adaptor.format === 'gemini') return toGemini(a, body, method, texts);
      return toOpenAI(a, requests, method, texts);
    },
  };
  return {
    format: geminiGenerate,
    body,
    model,
    stream: false,
    includeUsage: false,
    maxTokens: 0,
    bytes: (req.body as Buffer).length,
    surface,
  };
}

/** Every Gemini method under /models/*: embeddings here, generateContent and streamGenerateContent in the core. */
export function geminiAnyInbound(req: RelayRequest): InboundCall {
  const parsed = geminiModelFromPath(req.url);
  if (parsed && (parsed.method === 'embedContent' || parsed.method === 'batchEmbedContents'))
    return geminiEmbedInbound(req, parsed.model, parsed.method);
  return geminiInbound(req);
}
