import { expect } from 'vitest';
import { CHANNEL_KEYS, CHANNEL_MODELS, type ChannelKind, type ConformanceFixture } from './conformance.js';
import type { VendorRequest } from './mock-vendor.js';

type Body = Record<string, unknown>;
type Part = Record<string, unknown>;

/** The upstream path of a chat call to a channel type's chat model. */
export function chatPath(channel: ChannelKind, stream = false, model: string = CHANNEL_MODELS[channel]): string {
  if (channel === 'openai') return '/v1/chat/completions';
  if (channel === 'anthropic') return '/v1/messages';
  return `/v1beta/models/${model}:${stream ? 'streamGenerateContent' : 'generateContent'}`;
}

/** The channel's key, as its vendor reads it. */
function upstreamKey(r: VendorRequest): string {
  if (r.vendor === 'anthropic') return String(r.headers['x-api-key'] ?? '');
  if (r.vendor === 'gemini') return String(r.headers['x-goog-api-key'] ?? r.query.get('key') ?? '');
  return String(r.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}

/**
 * The newest upstream request to the channel's vendor, checked: the path given, the channel's own key, and none of
 * the caller's credentials in any header or the query.
 */
export function upstreamCall(fx: ConformanceFixture, channel: ChannelKind, path: string): VendorRequest {
  const r = fx.vendor.lastRequest(channel);
  expect(r.path).toBe(path);
  expect(upstreamKey(r)).toBe(CHANNEL_KEYS[channel]);
  const secret = fx.key.replace(/^sk-/, '');
  const leaked = Object.entries(r.headers).filter(([, v]) => String(v).includes(secret));
  expect(leaked.map(([k]) => k)).toEqual([]);
  expect(r.query.toString()).not.toContain(secret);
  return r;
}

const partsText = (parts: unknown): string =>
  ((Array.isArray(parts) ? parts : []) as Part[]).map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
const contentText = (content: unknown): string => (typeof content === 'string' ? content : partsText(content));

/** The system prompt an upstream request carries, as text. */
export function systemOf(r: VendorRequest): string {
  const b = r.body;
  if (r.vendor === 'anthropic') return contentText(b.system);
  if (r.vendor === 'gemini') return partsText((b.systemInstruction as { parts?: unknown } | undefined)?.parts);
  return ((b.messages ?? []) as { role: string; content: unknown }[])
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .join('\n');
}

/** The conversation's roles upstream, system prompts left out, as user / assistant / tool. */
export function rolesOf(r: VendorRequest): string[] {
  if (r.vendor === 'gemini') {
    return ((r.body.contents ?? []) as { role?: string; parts?: Part[] }[]).map((c) =>
      c.role === 'model' ? 'assistant' : (c.parts ?? []).some((p) => p.functionResponse) ? 'tool' : 'user',
    );
  }
  if (r.vendor === 'anthropic') {
    return ((r.body.messages ?? []) as { role: string; content: unknown }[]).map((m) =>
      Array.isArray(m.content) && (m.content as Part[]).some((p) => p.type === 'tool_result') ? 'tool' : m.role,
    );
  }
  return ((r.body.messages ?? []) as { role: string }[])
    .map((m) => m.role)
    .filter((role) => role !== 'system' && role !== 'developer');
}

/** Name and parameter schema of every tool an upstream request offers. */
export function toolsOf(r: VendorRequest): { name: string; schema: unknown }[] {
  const tools = (r.body.tools ?? []) as Body[];
  if (r.vendor === 'gemini')
    return tools.flatMap((t) =>
      ((t.functionDeclarations ?? []) as Body[]).map((d) => ({
        name: String(d.name),
        schema: d.parametersJsonSchema ?? d.parameters,
      })),
    );
  if (r.vendor === 'anthropic') return tools.map((t) => ({ name: String(t.name), schema: t.input_schema }));
  if (r.path === '/v1/responses') return tools.map((t) => ({ name: String(t.name), schema: t.parameters }));
  return tools.map((t) => ({ name: String((t.function as Body).name), schema: (t.function as Body).parameters }));
}

/** The structured-output schema an upstream request asks for (native only; undefined without one). */
export function structuredSchemaOf(r: VendorRequest): unknown {
  const b = r.body;
  if (r.vendor === 'anthropic') return ((b.output_config as Body | undefined)?.format as Body | undefined)?.schema;
  if (r.vendor === 'gemini') {
    const config = (b.generationConfig ?? {}) as Body;
    return config.responseMimeType === 'application/json'
      ? (config.responseJsonSchema ?? config.responseSchema)
      : undefined;
  }
  if (r.path === '/v1/responses') return ((b.text as Body | undefined)?.format as Body | undefined)?.schema;
  return ((b.response_format as Body | undefined)?.json_schema as Body | undefined)?.schema;
}

/** The generation parameters an upstream request carries, under common names. */
export function paramsOf(r: VendorRequest): {
  temperature?: unknown;
  topP?: unknown;
  maxTokens?: unknown;
  stop?: unknown;
} {
  const b = r.body;
  if (r.vendor === 'gemini') {
    const c = (b.generationConfig ?? {}) as Body;
    return { temperature: c.temperature, topP: c.topP, maxTokens: c.maxOutputTokens, stop: c.stopSequences };
  }
  if (r.vendor === 'anthropic')
    return { temperature: b.temperature, topP: b.top_p, maxTokens: b.max_tokens, stop: b.stop_sequences };
  const stop = b.stop === undefined || Array.isArray(b.stop) ? b.stop : [b.stop];
  return {
    temperature: b.temperature,
    topP: b.top_p,
    maxTokens: b.max_completion_tokens ?? b.max_tokens ?? b.max_output_tokens,
    stop,
  };
}

/** Every JSON Schema `type` in a schema, lower-case expected on the JSON Schema vendors. */
export function schemaTypes(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object') return [];
  if (Array.isArray(schema)) return schema.flatMap(schemaTypes);
  const node = schema as Body;
  const own = (Array.isArray(node.type) ? node.type : [node.type]).filter((t): t is string => typeof t === 'string');
  const nested = Object.entries(node).flatMap(([k, v]) =>
    k === 'enum' || k === 'const' || k === 'default' ? [] : schemaTypes(v),
  );
  return [...own, ...nested];
}
