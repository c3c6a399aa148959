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
import { jsonSchemaFromGemini } from './json-schema.js';
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

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;

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
const camel = (o: unknown): Json =>
  o && typeof o === 'object' && !Array.isArray(o)
    ? Object.fromEntries(Object.entries(o).map(([k, v]) => [camelKey(k), v]))
    : {};

function normalizePart(p: unknown): Json {
  const q = camel(p);
  for (const k of ['inlineData', 'fileData', 'functionCall', 'functionResponse']) if (q[k]) q[k] = camel(q[k]);
  return q;
}

const normalizeContent = (c: unknown): Json => {
  const x = camel(c);
  x.parts = Array.isArray(x.parts) ? x.parts.map(normalizePart) : [];
  return x;
};

function normalizeRequest(body: Json): Json {
  const r = camel(body);
  if (typeof r.systemInstruction === 'string') r.systemInstruction = { parts: [{ text: r.systemInstruction }] };
  else if (r.systemInstruction) r.systemInstruction = normalizeContent(r.systemInstruction);
  r.contents = Array.isArray(r.contents) ? r.contents.map(normalizeContent) : [];
  r.generationConfig = camel(r.generationConfig);
  if (r.generationConfig.thinkingConfig) r.generationConfig.thinkingConfig = camel(r.generationConfig.thinkingConfig);
  r.tools = Array.isArray(r.tools)
    ? r.tools.map((t: unknown) => ({
        ...camel(t),
        functionDeclarations: (camel(t).functionDeclarations ?? []).map(camel),
      }))
    : [];
  r.toolConfig = camel(r.toolConfig);
  r.toolConfig.functionCallingConfig = camel(r.toolConfig.functionCallingConfig);
  return r;
}

/* ---------- request → IR ---------- */

/**
 * Contents → IR messages. Function calls without an id get `call_<n>` (n counts calls through the request);
 * a functionResponse without an id answers the first still-open call of the latest model turn with its name
 * (preferring calls that had no id either).
 * A user turn's functionResponse parts become a 'tool' message, its other parts a 'user' message, in order.
 */
function contentsToIR(contents: Json[]): IRMessage[] {
  const out: IRMessage[] = [];
  let n = 0;
  const nextId = () => geminiCallId(n++);
  let open: { id: string; name: string; given: boolean }[] = [];
  const resultId = (fr: Json): string => {
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
        (c.parts as Json[])
          .map((p) => p.functionCall?.id)
          .filter(Boolean)
          .map(String),
      );
      open = parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name, given: given.has(p.id) }] : []));
      out.push({ role: 'assistant', parts });
      continue;
    }
    let current: IRMessage | undefined;
    for (const p of c.parts as Json[]) {
      const fr = p.functionResponse as Json | undefined;
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

function toolChoiceToIR(fc: Json): IRToolChoice | undefined {
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
function reasoningToIR(tc: Json | undefined): IRRequest['reasoning'] {
  if (!tc) return undefined;
  const level = String(tc.thinkingLevel ?? '').toLowerCase() as (typeof EFFORTS)[number];
  const effort = EFFORTS.includes(level) ? level : undefined;
  const budget = typeof tc.thinkingBudget === 'number' && tc.thinkingBudget >= 0 ? tc.thinkingBudget : undefined;
  if (budget === undefined && !effort && tc.includeThoughts !== true && tc.thinkingBudget !== -1) return undefined;
  return { ...(effort ? { effort } : {}), ...(budget !== undefined ? { budgetTokens: budget } : {}) };
}

/* ---------- IR → request ---------- */

/** Keywords Gemini's OpenAPI-subset Schema accepts; everything else ($schema, additionalProperties, …) is dropped. */
const SCHEMA_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const STRING_FORMATS = new Set(['enum', 'date-time']);

function resolveRef(root: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: any = root;
  for (const seg of ref.slice(2).split('/')) node = node?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node && typeof node === 'object' ? node : undefined;
}

/**
 * JSON Schema → the Schema Gemini accepts: local $refs inlined, `type: [x, 'null']` and `anyOf` with a null
 * branch → nullable, `const` → enum, `oneOf` → anyOf, unsupported keywords and string formats dropped. Type
 * names are kept as given (lowercase JSON Schema or uppercase OpenAPI both work).
 */
export function geminiSchema(schema: unknown, root: Json = schema as Json, depth = 0): Json {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || depth > 24) return {};
  let s = schema as Json;
  if (typeof s.$ref === 'string') {
    const { $ref, ...rest } = s;
    s = { ...resolveRef(root, $ref), ...rest };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'const') out.enum ??= [v];
    else if (k === 'anyOf' || k === 'oneOf') {
      const branches = (Array.isArray(v) ? v : []).filter((b: Json) => b?.type !== 'null' && b?.type !== 'NULL');
      if (branches.length < (Array.isArray(v) ? v.length : 0)) out.nullable = true;
      if (branches.length === 1) Object.assign(out, geminiSchema(branches[0], root, depth + 1));
      else if (branches.length) out.anyOf = branches.map((b: unknown) => geminiSchema(b, root, depth + 1));
    } else if (!SCHEMA_KEYS.has(k)) continue;
    else if (k === 'type' && Array.isArray(v)) {
      const types = v.filter((t) => String(t).toLowerCase() !== 'null');
      out.type = types[0] ?? 'string';
      if (types.length < v.length) out.nullable = true;
    } else if (k === 'properties' && v && typeof v === 'object') {
      const props = Object.fromEntries(
        Object.entries(v as Json).map(([name, sub]) => [name, geminiSchema(sub, root, depth + 1)]),
      );
      if (Object.keys(props).length) out.properties = props;
    } else if (k === 'items') out.items = geminiSchema(Array.isArray(v) ? v[0] : v, root, depth + 1);
    else if (k === 'format' && String(s.type).toLowerCase() === 'string' && !STRING_FORMATS.has(String(v))) continue;
    else out[k] = v;
  }
  return out;
}

/** An object schema with no properties is rejected by Gemini: such a function gets no `parameters`. */
function toolFromIR(t: IRTool): Json {
  const parameters = geminiSchema(t.parameters);
  const empty =
    String(parameters.type ?? 'object').toLowerCase() === 'object' && !parameters.properties && !parameters.anyOf;
  return { name: t.name, ...(t.description ? { description: t.description } : {}), ...(empty ? {} : { parameters }) };
}

function toolChoiceFromIR(tc: IRToolChoice): Json {
  if (typeof tc !== 'string') return { mode: 'ANY', allowedFunctionNames: [tc.name] };
  return { mode: tc === 'required' ? 'ANY' : tc === 'none' ? 'NONE' : 'AUTO' };
}

const EFFORT_BUDGET: Record<(typeof EFFORTS)[number], number> = { minimal: 0, low: 1024, medium: 8192, high: 24576 };

/** reasoning → thinkingConfig; thoughts are asked for whenever thinking is on (IR cannot say otherwise). */
function thinkingConfigFromIR(r: IRRequest['reasoning']): Json | undefined {
  if (!r) return undefined;
  const budget = r.budgetTokens ?? (r.effort ? EFFORT_BUDGET[r.effort] : undefined);
  if (budget === 0) return { thinkingBudget: 0 };
  return { ...(budget !== undefined ? { thinkingBudget: budget } : {}), includeThoughts: true };
}

/** A tool result's text as the functionResponse.response object: its JSON object, else { output } / { error }. */
function responseObject(content: string, isError?: boolean): Json {
  let v: unknown;
  try {
    v = JSON.parse(content);
  } catch {
    v = undefined;
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) return isError ? { error: v } : (v as Json);
  return isError ? { error: content } : { output: content };
}

/**
 * IR messages → contents: assistant → 'model', tool results → user-role functionResponse parts named after the
 * earlier call with that id, consecutive same-role turns merged. Ids are not sent: Gemini pairs by order.
 */
function contentsFromIR(ir: IRRequest): Json[] {
  const names = new Map<string, string>();
  const out: Json[] = [];
  const toolResult = (p: Extract<IRPart, { type: 'tool_result' }>) => ({
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
    const g = b.generationConfig as Json;
    const decls = (b.tools as Json[]).flatMap((t) => t.functionDeclarations as Json[]);
    // responseJsonSchema and parametersJsonSchema are JSON Schema already; responseSchema and parameters are Gemini's OpenAPI subset.
    const schema = g.responseJsonSchema ?? (g.responseSchema ? jsonSchemaFromGemini(g.responseSchema) : undefined);
    return {
      model: '',
      system: ((b.systemInstruction?.parts ?? []) as Json[])
        .filter((p) => typeof p.text === 'string')
        .map((p) => String(p.text)),
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
    const body: Json = {};
    if (ir.system.length) body.systemInstruction = { parts: ir.system.map((text) => ({ text })) };
    body.contents = contentsFromIR(ir);
    if (ir.tools?.length) body.tools = [{ functionDeclarations: ir.tools.map(toolFromIR) }];
    if (ir.toolChoice) body.toolConfig = { functionCallingConfig: toolChoiceFromIR(ir.toolChoice) };
    const g: Json = {};
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
    const b = body as Json;
    const id = String(b.responseId ?? '');
    const cand = (b.candidates?.[0] ?? {}) as Json;
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
      usage: geminiUsageToIR(b.usageMetadata),
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
    };
  },
  newDecodeState: newGeminiDecodeState,
  decodeEvent: decodeGeminiEvent,
  finish: finishGeminiDecode,
  newEncodeState: newGeminiEncodeState,
  encodeEvent: encodeGeminiEvent,
  errorBody: (status, message) => ({ error: { code: status, message, status: geminiStatus(status) } }),
};
