import { isRecord as isObject, type JsonObject } from '../../ir/json-data.js';
import type { IRRequest } from '../../ir/types.js';
import type { AnthropicRequest } from './wire.js';

/**
 * Structured output (a JSON answer, optionally to a schema) on Anthropic upstreams. Models that have it natively
 * get `output_config.format`; older ones get a forced tool whose input schema is the wanted schema, and the tool
 * call in their answer is turned back into text (see `structuredTool` and the decoders that use it).
 */

/** The reserved tool that carries an object answer (its input is the answer). */
export const STRUCTURED_TOOL = 'tollway_structured_output';
/** The reserved tool for a non-object schema: tool inputs must be objects, so the answer is its `value` property. */
export const STRUCTURED_VALUE_TOOL = 'tollway_structured_value';
const VALUE_KEY = 'value';

/** What a reserved tool's input means: the answer itself, or the answer under `value`; undefined for other tools. */
export type StructuredTool = 'object' | 'value';
export const structuredTool = (name: unknown): StructuredTool | undefined =>
  name === STRUCTURED_TOOL ? 'object' : name === STRUCTURED_VALUE_TOOL ? 'value' : undefined;

/** A reserved tool's input as the answer's JSON text. */
export function structuredText(kind: StructuredTool, input: unknown): string {
  const answer = kind === 'value' && input && typeof input === 'object' ? (input as JsonObject)[VALUE_KEY] : input;
  return JSON.stringify(answer ?? {});
}

/** Same, from the input's JSON text (a streamed tool call); text that is not JSON is passed on as it is. */
export function structuredTextOfJson(kind: StructuredTool, json: string): string {
  try {
    return structuredText(kind, JSON.parse(json || '{}'));
  } catch {
    return json;
  }
}

/* ---------- which models have native structured output ---------- */

/** Smallest version with native structured output per family; every family from major version 5 on has it. */
const NATIVE_SINCE: Record<string, number> = { opus: 4.1, sonnet: 4.5, haiku: 4.5 };
const NATIVE_ALL_FROM_MAJOR = 5;
/** claude-sonnet-4-5-20250929, claude-opus-4-1, claude-haiku-4-5@20251001 (a minor is one digit; dates are not minors). */
const FAMILY_FIRST = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d)(?!\d))?/;
/** claude-3-5-haiku-20241022, claude-3-opus-20240229. */
const VERSION_FIRST = /claude-(\d+)(?:[-.](\d)(?!\d))?-(opus|sonnet|haiku)/;

/** Whether a Claude model takes `output_config.format`, from its name; unknown names get the forced tool, which every model takes. */
export function hasNativeStructuredOutput(model: string): boolean {
  const name = model.toLowerCase();
  const f = FAMILY_FIRST.exec(name);
  const v = f ? undefined : VERSION_FIRST.exec(name);
  if (!f && !v) return false;
  const family = f ? f[1]! : v![3]!;
  const major = Number(f ? f[2] : v![1]);
  const minor = Number((f ? f[3] : v![2]) ?? 0);
  if (major >= NATIVE_ALL_FROM_MAJOR) return true;
  return major + minor / 10 >= (NATIVE_SINCE[family] ?? Infinity);
}

/* ---------- the schema Anthropic's native structured output accepts ---------- */

/** Keywords structured output rejects (numeric and length bounds, among others). */
const UNSUPPORTED = new Set([
  '$schema',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'maxItems',
  'minProperties',
  'maxProperties',
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
]);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);
/** minItems may only be 0 or 1. */
const MAX_MIN_ITEMS = 1;
const MAX_DEPTH = 32;
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', '$defs', 'definitions']);

const isObjectType = (s: JsonObject): boolean =>
  s.type === 'object' ||
  (Array.isArray(s.type) && s.type.includes('object')) ||
  (s.type === undefined && isObject(s.properties));

/** JSON Schema → what `output_config.format` accepts: unsupported keywords dropped, oneOf as anyOf, every object closed (additionalProperties false is required). */
export function anthropicOutputSchema(schema: unknown, depth = 0): JsonObject {
  if (!isObject(schema) || depth > MAX_DEPTH) return {};
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) {
    if (UNSUPPORTED.has(k)) continue;
    if (k === 'format' && !FORMATS.has(String(v))) continue;
    if (k === 'minItems' && Number(v) > MAX_MIN_ITEMS) continue;
    if (k === 'additionalProperties') continue;
    if (SUBSCHEMA_MAPS.has(k) && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([n, sub]) => [n, anthropicOutputSchema(sub, depth + 1)]));
    else if ((SUBSCHEMA_LISTS.has(k) || k === 'oneOf') && Array.isArray(v))
      out[k === 'oneOf' ? 'anyOf' : k] = v.map((sub) => anthropicOutputSchema(sub, depth + 1));
    else if (k === 'items')
      out.items = Array.isArray(v)
        ? v.map((sub) => anthropicOutputSchema(sub, depth + 1))
        : anthropicOutputSchema(v, depth + 1);
    else out[k] = v;
  }
  if (isObjectType(out)) out.additionalProperties = false;
  return out;
}

/* ---------- the request ---------- */

const TOOL_DESCRIPTION = 'Give your final answer by calling this tool: its input is the answer.';

/**
 * Adds structured output to an Anthropic request body: `output_config.format` for a schema on a model that has
 * it; otherwise (an older model, or json_object, for which Anthropic has no native form — a schema
 * `{type: 'object'}` would only allow `{}` there) a reserved tool with the schema as its input schema, forced
 * unless the caller's tool choice says otherwise or thinking is on (Anthropic then allows only auto).
 */
export function addStructuredOutput(body: AnthropicRequest, ir: IRRequest, thinking: boolean): void {
  const rf = ir.responseFormat;
  if (!rf) return;
  if (rf.type === 'json_schema' && hasNativeStructuredOutput(ir.model)) {
    body.output_config = {
      ...(isObject(body.output_config) ? body.output_config : {}),
      format: { type: 'json_schema', schema: anthropicOutputSchema(rf.schema) },
    };
    return;
  }
  const choice = body.tool_choice;
  // The caller ruled tools out: no reserved tool can carry the answer.
  if (choice?.type === 'none') return;
  const schema: JsonObject = rf.type === 'json_schema' && isObject(rf.schema) ? rf.schema : { type: 'object' };
  const objectRoot = isObjectType(schema);
  const tool = objectRoot
    ? { name: STRUCTURED_TOOL, description: TOOL_DESCRIPTION, input_schema: { ...schema, type: 'object' } }
    : {
        name: STRUCTURED_VALUE_TOOL,
        description: TOOL_DESCRIPTION,
        input_schema: { type: 'object', properties: { [VALUE_KEY]: schema }, required: [VALUE_KEY] },
      };
  const others = Array.isArray(body.tools) ? body.tools : [];
  body.tools = [...others, tool];
  if (thinking || choice?.type === 'tool' || choice?.type === 'any') return;
  const parallel =
    choice?.disable_parallel_tool_use !== undefined
      ? { disable_parallel_tool_use: choice.disable_parallel_tool_use }
      : {};
  body.tool_choice = others.length ? { type: 'any', ...parallel } : { type: 'tool', name: tool.name, ...parallel };
}

/** Anthropic's structured output request (`output_config.format`, or the beta's top-level `output_format`) → IR. */
export function responseFormatFromAnthropic(body: AnthropicRequest): IRRequest['responseFormat'] {
  const f = (isObject(body.output_config) ? body.output_config.format : undefined) ?? body.output_format;
  if (!isObject(f) || f.type !== 'json_schema' || !isObject(f.schema)) return undefined;
  return { type: 'json_schema', name: typeof f.name === 'string' && f.name ? f.name : 'output', schema: f.schema };
}
