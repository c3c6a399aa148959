import { expect } from 'vitest';
import { CHANNEL_KEYS, type ChannelKind, type ConformanceFixture } from './conformance.js';
import type { VendorRequest } from './mock-vendor.js';

/**
 * What an upstream received, read the same way whatever its wire format (OpenAI chat or Responses, Anthropic
 * messages, Gemini generateContent): the conformance tests assert on these instead of on one vendor's fields.
 */

type Obj = Record<string, unknown>;
/** A conversation role the way the tests compare them. */
export type Role = 'user' | 'assistant' | 'tool';

const SYSTEM_ROLES = new Set(['system', 'developer']);

const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const isResponses = (r: VendorRequest) => r.path === '/v1/responses';

/** Text of a string content or of its text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join('');
}

/** The OpenAI Responses input as a list of items (a string input is one user message). */
function responsesInput(body: Obj): Obj[] {
  return typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : list(body.input);
}

/** The system prompt the upstream received, or undefined. */
export function sentSystem(r: VendorRequest): string | undefined {
  const b = r.body;
  if (r.vendor === 'anthropic') return b.system === undefined ? undefined : textOf(b.system);
  if (r.vendor === 'gemini') {
    const si = (b.systemInstruction ?? b.system_instruction) as Obj | undefined;
    return si ? textOf(si.parts) : undefined;
  }
  if (isResponses(r) && typeof b.instructions === 'string') return b.instructions;
  const msgs = isResponses(r) ? responsesInput(b) : list(b.messages);
  const sys = msgs.filter((m) => SYSTEM_ROLES.has(String(m.role)));
  return sys.length ? sys.map((m) => textOf(m.content)).join('\n') : undefined;
}

function anthropicRole(m: Obj): Role {
  if (m.role === 'assistant') return 'assistant';
  return list(m.content).some((p) => p.type === 'tool_result') ? 'tool' : 'user';
}

function geminiRole(c: Obj): Role {
  if (c.role === 'model') return 'assistant';
  return list(c.parts).some((p) => p.functionResponse) ? 'tool' : 'user';
}

function responsesRole(item: Obj): Role | undefined {
  if (item.type === 'function_call_output') return 'tool';
  if (item.type === 'function_call' || item.role === 'assistant') return 'assistant';
  if (item.role === 'user') return 'user';
  return undefined;
}

/** The conversation's turns, system excluded; consecutive items of one turn (parallel calls, results) merged. */
export function sentRoles(r: VendorRequest): Role[] {
  let roles: (Role | undefined)[];
  if (r.vendor === 'anthropic') roles = list(r.body.messages).map(anthropicRole);
  else if (r.vendor === 'gemini') roles = list(r.body.contents).map(geminiRole);
  else if (isResponses(r)) roles = responsesInput(r.body).map(responsesRole);
  else
    roles = list(r.body.messages)
      .filter((m) => !SYSTEM_ROLES.has(String(m.role)))
      .map((m) => m.role as Role);
  return roles.filter((x): x is Role => x !== undefined).filter((x, i, all) => i === 0 || all[i - 1] !== x);
}

/** Each tool the upstream was offered: its name and its parameters' schema. */
export function sentTools(r: VendorRequest): { name: string; schema: unknown }[] {
  const tools = list(r.body.tools);
  if (r.vendor === 'anthropic') return tools.map((t) => ({ name: String(t.name), schema: t.input_schema }));
  if (r.vendor === 'gemini') {
    return tools
      .flatMap((t) => list(t.functionDeclarations))
      .map((d) => ({ name: String(d.name), schema: d.parametersJsonSchema ?? d.parameters }));
  }
  if (isResponses(r)) return tools.map((t) => ({ name: String(t.name), schema: t.parameters }));
  return tools.map((t) => t.function as Obj).map((f) => ({ name: String(f.name), schema: f.parameters }));
}

/** The one tool the upstream was forced to call, or undefined when the model may choose. */
export function sentForcedTool(r: VendorRequest): string | undefined {
  // "Call some tool" forces the only one there is.
  const only = sentTools(r).length === 1 ? sentTools(r)[0]!.name : undefined;
  if (r.vendor === 'gemini') {
    const calling = ((r.body.toolConfig as Obj | undefined)?.functionCallingConfig ?? {}) as {
      mode?: string;
      allowedFunctionNames?: string[];
    };
    if (calling.mode !== 'ANY') return undefined;
    return calling.allowedFunctionNames?.length === 1 ? calling.allowedFunctionNames[0] : only;
  }
  const choice = r.body.tool_choice;
  if (!choice || typeof choice !== 'object') return choice === 'required' ? only : undefined;
  const c = choice as Obj;
  if (c.type === 'any') return only;
  const name = c.name ?? (c.function as Obj | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The contents of the tool results in the last turn, as text. */
export function sentToolResults(r: VendorRequest): string[] {
  const asText = (v: unknown) => (typeof v === 'string' ? v : Array.isArray(v) ? textOf(v) : JSON.stringify(v));
  if (r.vendor === 'anthropic') {
    const last = list(r.body.messages).at(-1) ?? {};
    return list(last.content)
      .filter((p) => p.type === 'tool_result')
      .map((p) => asText(p.content));
  }
  if (r.vendor === 'gemini') {
    const last = list(r.body.contents).at(-1) ?? {};
    return list(last.parts)
      .filter((p) => p.functionResponse)
      .map((p) => asText((p.functionResponse as Obj).response));
  }
  if (isResponses(r))
    return responsesInput(r.body)
      .filter((i) => i.type === 'function_call_output')
      .map((i) => asText(i.output));
  const msgs = list(r.body.messages);
  const tail: Obj[] = [];
  for (let i = msgs.length - 1; i >= 0 && msgs[i]!.role === 'tool'; i--) tail.unshift(msgs[i]!);
  return tail.map((m) => asText(m.content));
}

/** The structured-output schema the upstream was asked for (JSON Schema or Gemini's), or undefined. */
export function sentOutputSchema(r: VendorRequest): unknown {
  const b = r.body;
  if (r.vendor === 'anthropic') {
    const format = ((b.output_config as Obj | undefined)?.format ?? b.output_format) as Obj | undefined;
    return format?.schema;
  }
  if (r.vendor === 'gemini') {
    const config = (b.generationConfig ?? {}) as Obj;
    return config.responseJsonSchema ?? config.responseSchema;
  }
  if (isResponses(r)) return ((b.text as Obj | undefined)?.format as Obj | undefined)?.schema;
  return ((b.response_format as Obj | undefined)?.json_schema as Obj | undefined)?.schema;
}

/** True when the request was sent to be streamed back. */
export function sentStreamed(r: VendorRequest): boolean {
  return r.vendor === 'gemini' ? r.path.endsWith(':streamGenerateContent') : r.body.stream === true;
}

/** Every header value, the path and the query of a request, to look for a credential in. */
export function sentCredentials(r: VendorRequest): string {
  return [JSON.stringify(r.headers), r.path, r.query.toString()].join('\n');
}

/** The model the upstream was asked for (Gemini: from the path). */
export function sentModel(r: VendorRequest): string {
  if (r.vendor === 'gemini') return decodeURIComponent(/\/models\/([^:/]+)/.exec(r.path)?.[1] ?? '');
  return String(r.body.model ?? '');
}

/**
 * The requests the mock vendor received since `mark` (its request count before the call): `count` of them, all to
 * `channel`'s vendor for `model`, streamed or not, each with the channel's key and never the caller's.
 */
export function expectSent(
  fx: ConformanceFixture,
  mark: number,
  channel: ChannelKind,
  want: { model: string; streamed: boolean; count?: number },
): VendorRequest[] {
  const sent = fx.vendor.requests.slice(mark);
  expect(sent.map((r) => [r.vendor, sentModel(r), sentStreamed(r)])).toEqual(
    Array.from({ length: want.count ?? 1 }, () => [channel, want.model, want.streamed]),
  );
  for (const r of sent) {
    expect(sentCredentials(r)).toContain(CHANNEL_KEYS[channel]);
    expect(sentCredentials(r)).not.toContain(fx.key.replace(/^sk-/, ''));
  }
  return sent;
}
