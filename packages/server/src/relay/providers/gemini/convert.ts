import { groundingToolCalls, withToolCalls } from '../../ir/tool-calls.js';
import {
  decodeGeminiEvent,
  encodeGeminiEvent,
  finishGeminiDecode,
  geminiCallId,
  geminiFinishFromIR,
  geminiFinishToIR,
  geminiPartsFromIR,
  geminiPartsToIR,
  geminiUsageFromIR,
  geminiUsageToIR,
  newGeminiDecodeState,
  newGeminiEncodeState,
  type GeminiDecodeState,
  type GeminiEncodeState,
} from './stream.js';
import { geminiSchema, jsonSchemaFromGemini } from './json-schema.js';
import type {
  IRMessage,
  IRPart,
  IRRequest,
  IRRole,
  IRStreamEvent,
  IRTool,
  IRToolChoice,
  WireFormat,
} from '../../ir/types.js';
import type { JsonObject } from '../../ir/json-data.js';
import type {
  GeminiCandidate,
  GeminiContent,
  GeminiFunctionCallingConfig,
  GeminiFunctionDeclaration,
  GeminiFunctionResponse,
  GeminiGenerationConfig,
  GeminiPart,
  GeminiRequest,
  GeminiResponse,
  GeminiThinkingConfig,
} from './wire.js';

/** JSON Schema → Gemini's schema lives in json-schema.ts beside its inverse; callers of the format import it here. */
export { geminiSchema };

/** A request after normalizeRequest: camelCase keys, and the lists and configs it reads always present. */
type NormalizedRequest = {
  systemInstruction?: GeminiContent;
  contents: GeminiContent[];
  generationConfig: GeminiGenerationConfig;
  tools: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig: { functionCallingConfig: GeminiFunctionCallingConfig };
};

/**
 * Gemini generateContent (`/v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`).
 * The model and the streaming switch are in the URL: requestToIR leaves `model` empty and `stream` false for
 * the caller to set (see geminiModelFromPath), and requestFromIR's body carries neither.
 */

/** '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse' → { model: 'gemini-2.5-flash', method: 'streamGenerateContent' }. */
export function geminiModelFromPath(path: string): { model: string; method: string } | undefined {
  const m = /\/models\/([^?#]+):([A-Za-z]+)(?:[?#].*)?$/.exec(path);
  if (!m) return undefined;
  let model = m[1]!;
  try {
    model = decodeURIComponent(model);
  } catch {
    /* keep it as sent */
  }
  return { model, method: m[2]! };
}

/* ---------- snake_case requests: proto JSON accepts both spellings, the docs' curl examples use snake_case ---------- */

const camelKey = (k: string) => (k.includes('_') ? k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : k);
/** One level of keys to camelCase; values (function args, schemas) are left alone. */
const camel = (o: unknown): JsonObject =>
  o && typeof o === 'object' && !Array.isArray(o)
    ? Object.fromEntries(Object.entries(o).map(([k, v]) => [camelKey(k), v]))
    : {};

function normalizePart(p: unknown): GeminiPart {
  const q = camel(p);
  for (const k of ['inlineData', 'fileData', 'functionCall', 'functionResponse']) if (q[k]) q[k] = camel(q[k]);
  return q;
}

const normalizeContent = (c: unknown): GeminiContent => {
  const x = camel(c);
  x.parts = Array.isArray(x.parts) ? x.parts.map(normalizePart) : [];
  return x as GeminiContent;
};

function normalizeRequest(body: JsonObject): NormalizedRequest {
  const r = camel(body);
  if (typeof r.systemInstruction === 'string') r.systemInstruction = { parts: [{ text: r.systemInstruction }] };
  else if (r.systemInstruction) r.systemInstruction = normalizeContent(r.systemInstruction);
  r.contents = Array.isArray(r.contents) ? r.contents.map(normalizeContent) : [];
  const generationConfig = camel(r.generationConfig);
  r.generationConfig = generationConfig;
  if (generationConfig.thinkingConfig) generationConfig.thinkingConfig = camel(generationConfig.thinkingConfig);
  r.tools = Array.isArray(r.tools)
    ? r.tools.map((t: unknown) => ({
        ...camel(t),
        // A declaration list that is not a list fails here, as the caller's error.
        functionDeclarations: ((camel(t).functionDeclarations ?? []) as unknown[]).map(camel),
      }))
    : [];
  const toolConfig = camel(r.toolConfig);
  r.toolConfig = toolConfig;
  toolConfig.functionCallingConfig = camel(toolConfig.functionCallingConfig);
  return r as NormalizedRequest;
}

/* ---------- request → IR ---------- */

/**
 * Contents → IR messages. Function calls without an id get `call_<n>` (n counts calls through the request);
 * a functionResponse without an id answers the first still-open call of the latest model turn with its name
 * (preferring calls that had no id either).
 * A user turn's functionResponse parts become a 'tool' message, its other parts a 'user' message, in order.
 */
function contentsToIR(contents: GeminiContent[]): IRMessage[] {
  const out: IRMessage[] = [];
  let n = 0;
  const nextId = () => geminiCallId(n++);
  let open: { id: string; name: string; given: boolean }[] = [];
  const resultId = (fr: GeminiFunctionResponse): string => {
    const given = fr.id ? String(fr.id) : undefined;
    let i = given ? open.findIndex((c) => c.id === given) : open.findIndex((c) => c.name === fr.name && !c.given);
    if (i < 0 && !given) i = open.findIndex((c) => c.name === fr.name);
    const id = given ?? (i >= 0 ? open[i]!.id : nextId());
    if (i >= 0) open.splice(i, 1);
    return id;
  };
  for (const c of contents) {
    if (c.role === 'model') {
      const parts = geminiPartsToIR(c.parts, nextId);
      const given = new Set(
        c.parts
          .map((p) => p.functionCall?.id)
          .filter(Boolean)
          .map(String),
      );
      open = parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name, given: given.has(p.id) }] : []));
      out.push({ role: 'assistant', parts });
      continue;
    }
    let current: IRMessage | undefined;
    for (const p of c.parts) {
      const fr = p.functionResponse;
      const role: IRRole = fr ? 'tool' : 'user';
      const parts: IRPart[] = fr
        ? [
            {
              type: 'tool_result',
              toolCallId: resultId(fr),
              name: String(fr.name ?? ''),
              content: JSON.stringify(fr.response ?? {}),
            },
          ]
        : geminiPartsToIR([p], nextId);
      if (!parts.length) continue;
      if (current?.role !== role) out.push((current = { role, parts: [] }));
      current.parts.push(...parts);
    }
  }
  return out;
}

function toolChoiceToIR(fc: GeminiFunctionCallingConfig): IRToolChoice | undefined {
  const mode = String(fc.mode ?? '').toUpperCase();
  if (mode === 'NONE') return 'none';
  if (mode === 'ANY')
    return Array.isArray(fc.allowedFunctionNames) && fc.allowedFunctionNames.length === 1
      ? { name: String(fc.allowedFunctionNames[0]) }
      : 'required';
  return mode === 'AUTO' || mode === 'VALIDATED' ? 'auto' : undefined;
}

const EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

/** thinkingConfig → reasoning. A budget of -1 (dynamic) or includeThoughts alone means "reasoning, no budget". */
function reasoningToIR(tc: GeminiThinkingConfig | undefined): IRRequest['reasoning'] {
  if (!tc) return undefined;
  const level = String(tc.thinkingLevel ?? '').toLowerCase() as (typeof EFFORTS)[number];
  const effort = EFFORTS.includes(level) ? level : undefined;
  const budget = typeof tc.thinkingBudget === 'number' && tc.thinkingBudget >= 0 ? tc.thinkingBudget : undefined;
  if (budget === undefined && !effort && tc.includeThoughts !== true && tc.thinkingBudget !== -1) return undefined;
  return { ...(effort ? { effort } : {}), ...(budget !== undefined ? { budgetTokens: budget } : {}) };
}

/* ---------- IR → request ---------- */

/** An object schema with no properties is rejected by Gemini: such a function gets no `parameters`. */
function toolFromIR(t: IRTool): GeminiFunctionDeclaration {
  const parameters = geminiSchema(t.parameters);
  const empty =
    String(parameters.type ?? 'object').toLowerCase() === 'object' && !parameters.properties && !parameters.anyOf;
  return { name: t.name, ...(t.description ? { description: t.description } : {}), ...(empty ? {} : { parameters }) };
}

function toolChoiceFromIR(tc: IRToolChoice): GeminiFunctionCallingConfig {
  if (typeof tc !== 'string') return { mode: 'ANY', allowedFunctionNames: [tc.name] };
  return { mode: tc === 'required' ? 'ANY' : tc === 'none' ? 'NONE' : 'AUTO' };
}

const EFFORT_BUDGET: Record<(typeof EFFORTS)[number], number> = { minimal: 0, low: 1024, medium: 8192, high: 24576 };

/** reasoning → thinkingConfig; thoughts are asked for whenever thinking is on (IR cannot say otherwise). */
function thinkingConfigFromIR(r: IRRequest['reasoning']): GeminiThinkingConfig | undefined {
  if (!r) return undefined;
  const budget = r.budgetTokens ?? (r.effort ? EFFORT_BUDGET[r.effort] : undefined);
  if (budget === 0) return { thinkingBudget: 0 };
  return { ...(budget !== undefined ? { thinkingBudget: budget } : {}), includeThoughts: true };
}

/** A tool result's text as the functionResponse.response object: its JSON object, else { output } / { error }. */
function responseObject(content: string, isError?: boolean): JsonObject {
  let v: unknown;
  try {
    v = JSON.parse(content);
  } catch {
    v = undefined;
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) return isError ? { error: v } : (v as JsonObject);
  return isError ? { error: content } : { output: content };
}

/**
 * IR messages → contents: assistant → 'model', tool results → user-role functionResponse parts named after the
 * earlier call with that id, consecutive same-role turns merged. Ids are not sent: Gemini pairs by order.
 */
function contentsFromIR(ir: IRRequest): GeminiContent[] {
  const names = new Map<string, string>();
  const out: GeminiContent[] = [];
  const toolResult = (p: Extract<IRPart, { type: 'tool_result' }>): GeminiFunctionResponse => ({
    name: names.get(p.toolCallId) ?? p.name ?? '',
    response: responseObject(p.content, p.isError),
  });
  for (const m of ir.messages) {
    for (const p of m.parts) if (p.type === 'tool_call') names.set(p.id, p.name);
    const role = m.role === 'assistant' ? 'model' : 'user';
    const parts = geminiPartsFromIR(m.parts, { history: true, toolResult });
    if (!parts.length) continue;
    const last = out[out.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  }
  return out;
}

/* ---------- the format ---------- */

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'UNAVAILABLE',
};

/** google.rpc status name for an HTTP status. */
export const geminiStatus = (status: number): string =>
  STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');

/** Gemini generateContent. The stream has no terminator: call `finish(state)` when the upstream body ends. */
export const geminiGenerate: WireFormat<GeminiDecodeState, GeminiEncodeState> & {
  finish(state: GeminiDecodeState): IRStreamEvent[];
} = {
  name: 'gemini',
  requestToIR(body) {
    const b = normalizeRequest(body);
    const g = b.generationConfig;
    const decls = b.tools.flatMap((t) => t.functionDeclarations);
    // responseJsonSchema and parametersJsonSchema are JSON Schema already; responseSchema and parameters are Gemini's OpenAPI subset.
    const schema = g.responseJsonSchema ?? (g.responseSchema ? jsonSchemaFromGemini(g.responseSchema) : undefined);
    return {
      model: '',
      system: (b.systemInstruction?.parts ?? []).filter((p) => typeof p.text === 'string').map((p) => String(p.text)),
      messages: contentsToIR(b.contents),
      tools: decls.length
        ? decls.map((d) => ({
            name: String(d.name ?? ''),
            description: d.description,
            parameters:
              d.parametersJsonSchema ??
              (d.parameters ? jsonSchemaFromGemini(d.parameters) : { type: 'object', properties: {} }),
          }))
        : undefined,
      toolChoice: toolChoiceToIR(b.toolConfig.functionCallingConfig),
      maxTokens: g.maxOutputTokens,
      temperature: g.temperature,
      topP: g.topP,
      topK: g.topK,
      stop: Array.isArray(g.stopSequences) ? g.stopSequences.map(String) : undefined,
      stream: false,
      reasoning: reasoningToIR(g.thinkingConfig),
      responseFormat:
        g.responseMimeType === 'application/json'
          ? schema
            ? { type: 'json_schema', name: 'response', schema }
            : { type: 'json_object' }
          : undefined,
    };
  },
  requestFromIR(ir) {
    const body: GeminiRequest = {};
    if (ir.system.length) body.systemInstruction = { parts: ir.system.map((text) => ({ text })) };
    body.contents = contentsFromIR(ir);
    if (ir.tools?.length) body.tools = [{ functionDeclarations: ir.tools.map(toolFromIR) }];
    if (ir.toolChoice) body.toolConfig = { functionCallingConfig: toolChoiceFromIR(ir.toolChoice) };
    const g: GeminiGenerationConfig = {};
    if (ir.temperature !== undefined) g.temperature = ir.temperature;
    if (ir.topP !== undefined) g.topP = ir.topP;
    if (ir.topK !== undefined) g.topK = ir.topK;
    if (ir.maxTokens !== undefined) g.maxOutputTokens = ir.maxTokens;
    if (ir.stop?.length) g.stopSequences = ir.stop;
    // Schemas go up as Gemini's OpenAPI subset (responseSchema, parameters), which every Gemini model takes;
    // the JSON Schema fields (responseJsonSchema, parametersJsonSchema) are documented for Gemini 2.5 and later only.
    if (ir.responseFormat) {
      g.responseMimeType = 'application/json';
      if (ir.responseFormat.type === 'json_schema') g.responseSchema = geminiSchema(ir.responseFormat.schema);
    }
    const thinking = thinkingConfigFromIR(ir.reasoning);
    if (thinking) g.thinkingConfig = thinking;
    if (Object.keys(g).length) body.generationConfig = g;
    return body;
  },
  responseToIR(body) {
    const b = body as GeminiResponse;
    const id = String(b.responseId ?? '');
    const cand: GeminiCandidate = b.candidates?.[0] ?? {};
    let n = 0;
    const parts = geminiPartsToIR(cand.content?.parts, () => geminiCallId(n++, id));
    const blocked = !b.candidates?.length && b.promptFeedback?.blockReason;
    return {
      id,
      model: String(b.modelVersion ?? ''),
      parts,
      stopReason: blocked
        ? 'content_filter'
        : geminiFinishToIR(
            cand.finishReason,
            parts.some((p) => p.type === 'tool_call'),
          ),
      usage: withToolCalls(geminiUsageToIR(b.usageMetadata), groundingToolCalls(b.candidates)),
    };
  },
  responseFromIR(ir, model) {
    return {
      candidates: [
        {
          content: { role: 'model', parts: geminiPartsFromIR(ir.parts, { ids: true }) },
          finishReason: geminiFinishFromIR[ir.stopReason],
          index: 0,
        },
      ],
      usageMetadata: geminiUsageFromIR(ir.usage),
      modelVersion: model,
      responseId: ir.id,
    } satisfies GeminiResponse;
  },
  newDecodeState: newGeminiDecodeState,
  decodeEvent: decodeGeminiEvent,
  finish: finishGeminiDecode,
  newEncodeState: newGeminiEncodeState,
  encodeEvent: encodeGeminiEvent,
  errorBody: (status, message) => ({ error: { code: status, message, status: geminiStatus(status) } }),
};
