import type http from 'node:http';
import {
  MOCK_EMBEDDING,
  MOCK_INPUT_TOKENS,
  MOCK_OUTPUT_TOKENS,
  base64Bytes,
  planAnswer,
  type Answer,
  type Turn,
} from './mock-vendor-plan.js';
import { openSse, sendJson } from './mock-vendor-wire.js';

type Body = Record<string, unknown>;
type Part = {
  text?: string;
  inlineData?: { mimeType?: string; data?: string };
  fileData?: { mimeType?: string; fileUri?: string };
  functionResponse?: { name?: string; response?: unknown };
};
type Content = { role?: string; parts?: Part[] };

/** Models the Gemini mock lists; the first flash model marks every stream chunk with finishReason. */
export const GEMINI_MODELS = ['gemini-2.5-flash', 'gemini-2.0-flash', 'gemini-embedding-001'];
export const FINISH_ON_EVERY_CHUNK_MODELS = ['gemini-2.0-flash'];
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const JSON_MIME = 'application/json';
const TOKEN_LIMITS = { inputTokenLimit: 1_048_576, outputTokenLimit: 65_536 };

/** An error in Gemini's shape. */
export function geminiError(res: http.ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } });
}

/** '/v1beta/models/gemini-2.5-flash:generateContent' → model and method; '/v1beta/models/x' → model only. */
export function parseGeminiPath(path: string): { model: string; method?: string } | undefined {
  const m = /^\/v1(?:beta|alpha)?\/models\/([^:/]+)(?::(\w+))?$/.exec(path);
  return m ? { model: decodeURIComponent(m[1]!), method: m[2] } : undefined;
}

/** A functionResponse's content: its only string field, else its JSON. */
function responseText(response: unknown): string {
  if (response && typeof response === 'object') {
    const values = Object.values(response as Record<string, unknown>);
    if (values.length === 1 && typeof values[0] === 'string') return values[0];
  }
  return typeof response === 'string' ? response : JSON.stringify(response);
}

/** A generationConfig field, in camelCase or snake_case (the REST API takes both). */
function configField(config: Record<string, unknown>, camel: string): unknown {
  return config[camel] ?? config[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

function generateTurn(body: Body): Turn {
  const contents = (Array.isArray(body.contents) ? body.contents : []) as Content[];
  const decls = (
    (Array.isArray(body.tools) ? body.tools : []) as {
      functionDeclarations?: { name?: string; parameters?: unknown; parametersJsonSchema?: unknown }[];
    }[]
  ).flatMap((t) => t.functionDeclarations ?? []);
  const tools = decls.map((d) => ({
    name: String(d.name ?? ''),
    schema: d.parametersJsonSchema ?? d.parameters ?? {},
  }));
  const calling = (
    body.toolConfig as { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } } | undefined
  )?.functionCallingConfig;
  const last = contents.at(-1);
  const lastParts = last && last.role !== 'model' ? (last.parts ?? []) : [];
  const results = lastParts.filter((p) => p.functionResponse).map((p) => responseText(p.functionResponse!.response));
  const lastUser = [...contents]
    .reverse()
    .find((c) => c.role !== 'model' && (c.parts ?? []).some((p) => typeof p.text === 'string'));
  const inline = lastParts.find((p) => p.inlineData)?.inlineData;
  const file = lastParts.find((p) => p.fileData)?.fileData;
  const config = (body.generationConfig ?? {}) as Record<string, unknown>;
  const schema = configField(config, 'responseJsonSchema') ?? configField(config, 'responseSchema');
  const wantsJson = configField(config, 'responseMimeType') === JSON_MIME;
  const allowed = calling?.allowedFunctionNames;
  return {
    tools,
    forcedTool: calling?.mode === 'ANY' && allowed?.length === 1 ? allowed[0] : undefined,
    noTools: calling?.mode === 'NONE',
    toolResults: results.length ? results : null,
    lastUserText: (lastUser?.parts ?? []).map((p) => p.text ?? '').join(''),
    image: inline
      ? { mediaType: String(inline.mimeType), bytes: base64Bytes(String(inline.data ?? '')) }
      : file
        ? { url: String(file.fileUri) }
        : undefined,
    schema: wantsJson ? (schema ?? 'json_object') : undefined,
  };
}

const usageMetadata = () => ({
  promptTokenCount: MOCK_INPUT_TOKENS,
  candidatesTokenCount: MOCK_OUTPUT_TOKENS,
  totalTokenCount: MOCK_INPUT_TOKENS + MOCK_OUTPUT_TOKENS,
});

function candidate(parts: unknown[], finish: boolean) {
  return { content: { role: 'model', parts }, ...(finish ? { finishReason: 'STOP' } : {}), index: 0 };
}

/** Each chunk's parts: text piece by piece; function calls whole, together. */
function chunksOf(answer: Answer): unknown[][] {
  if (answer.kind === 'text') return answer.pieces.map((text) => [{ text }]);
  return [answer.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } }))];
}

/** POST …:generateContent and …:streamGenerateContent?alt=sse. */
export function answerGenerate(res: http.ServerResponse, model: string, stream: boolean, body: Body): void {
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    return geminiError(res, 400, '* GenerateContentRequest.contents: contents is not specified');
  const answer = planAnswer(generateTurn(body), 'gemini');
  const chunks = chunksOf(answer);
  const meta = { modelVersion: model, responseId: 'gem_mock' };
  const whole = answer.kind === 'text' ? [{ text: answer.pieces.join('') }] : chunks.flat();
  if (!stream)
    return sendJson(res, 200, { candidates: [candidate(whole, true)], usageMetadata: usageMetadata(), ...meta });
  const sse = openSse(res, '\r\n');
  const finishEvery = FINISH_ON_EVERY_CHUNK_MODELS.includes(model);
  chunks.forEach((parts, i) => {
    const last = i === chunks.length - 1;
    sse.send({
      candidates: [candidate(parts, last || finishEvery)],
      ...(last ? { usageMetadata: usageMetadata() } : {}),
      ...meta,
    });
  });
  sse.end();
}

type EmbedRequest = { model?: string; content?: { parts?: Part[] } };

/** POST …:embedContent and …:batchEmbedContents (each request names `models/{model}` of the path). */
export function answerEmbed(res: http.ServerResponse, model: string, method: string, body: Body): void {
  const vector = { values: MOCK_EMBEDDING };
  if (method === 'embedContent') {
    if (!(body as EmbedRequest).content?.parts?.length)
      return geminiError(res, 400, '* EmbedContentRequest.content: contents is not specified');
    return sendJson(res, 200, { embedding: vector });
  }
  const requests = (Array.isArray(body.requests) ? body.requests : []) as EmbedRequest[];
  if (!requests.length) return geminiError(res, 400, '* BatchEmbedContentsRequest.requests: requests is not specified');
  const bad = requests.findIndex((r) => r.model !== `models/${model}` || !r.content?.parts?.length);
  if (bad >= 0)
    return geminiError(
      res,
      400,
      `* BatchEmbedContentsRequest.requests[${bad}]: model must be models/${model} and content must have parts`,
    );
  sendJson(res, 200, { embeddings: requests.map(() => vector) });
}

/** POST …:countTokens. */
export function answerGeminiCount(res: http.ServerResponse): void {
  sendJson(res, 200, { totalTokens: MOCK_INPUT_TOKENS });
}

/** GET /v1beta/models and /v1beta/models/{model}. */
export function answerGeminiModels(res: http.ServerResponse, model?: string): void {
  const info = (id: string) => ({
    name: `models/${id}`,
    version: '001',
    displayName: id,
    ...TOKEN_LIMITS,
    supportedGenerationMethods: id.includes('embedding')
      ? ['embedContent', 'batchEmbedContents']
      : ['generateContent', 'countTokens'],
  });
  if (model === undefined) return sendJson(res, 200, { models: GEMINI_MODELS.map(info) });
  if (!GEMINI_MODELS.includes(model))
    return geminiError(res, 404, `models/${model} is not found for API version v1beta`);
  sendJson(res, 200, info(model));
}
