import { RelayError } from '../pipeline/errors.js';
import type { OpenAIEndpoint } from '../providers/openai/request.js';

type Json = Record<string, unknown>;

/** The deepest nesting of objects and arrays a relay body may have (tool schemas need a few dozen at most). */
export const MAX_BODY_DEPTH = 64;
/** The largest token limit accepted (new-api's bound: half of a signed 32-bit integer). */
export const MAX_TOKEN_LIMIT = 1_073_741_823;
/** The most choices / candidates one call may ask for. */
export const MAX_CHOICES = 128;
/** The highest sampling temperature any supported protocol takes. */
const MAX_TEMPERATURE = 2;
/** OpenAI's speech speed range. */
const MIN_SPEECH_SPEED = 0.25;
const MAX_SPEECH_SPEED = 4;
/** The longest model name accepted (names are short; a huge one is an error echoed back otherwise). */
export const MAX_MODEL_NAME = 256;

/** A caller's mistake in one field: 400 in the caller's protocol, naming the field. */
export const invalidParam = (param: string, message: string) =>
  new RelayError(400, `invalid request body: ${message}`, 'invalid_request_error', 'invalid_value', param);

/** True when `v` nests objects and arrays deeper than MAX_BODY_DEPTH (stops at the limit: bounded stack). */
function tooDeep(v: unknown, depth: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (depth >= MAX_BODY_DEPTH) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (tooDeep(v[i], depth + 1)) return true;
    return false;
  }
  for (const k in v) if (tooDeep((v as Json)[k], depth + 1)) return true;
  return false;
}

/** True when a parsed body nests deeper than MAX_BODY_DEPTH (for routes that answer in their own shape). */
export const nestedTooDeep = (body: unknown): boolean => tooDeep(body, 0);

/** Refuses a body nested deeper than MAX_BODY_DEPTH. */
export function checkDepth(body: Json): void {
  if (tooDeep(body, 0)) throw invalidParam('', `the body is nested deeper than ${MAX_BODY_DEPTH} levels`);
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown) => v === undefined || v === null;

/** A token limit: absent → 0; else an integer from 0 to MAX_TOKEN_LIMIT. */
export function tokenLimit(v: unknown, param: string): number {
  if (absent(v)) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_TOKEN_LIMIT)
    throw invalidParam(param, `${param} must be an integer from 0 to ${MAX_TOKEN_LIMIT}`);
  return v;
}

/** A count of choices: absent, or an integer from 1 to MAX_CHOICES. */
function choiceCount(v: unknown, param: string): void {
  if (absent(v)) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_CHOICES)
    throw invalidParam(param, `${param} must be an integer from 1 to ${MAX_CHOICES}`);
}

function finiteNumber(v: unknown, param: string, min = -Infinity, max = Infinity): void {
  if (absent(v)) return;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidParam(param, `${param} must be a number`);
  if (v < min || v > max) throw invalidParam(param, `${param} must be from ${min} to ${max}`);
}

function boolean(v: unknown, param: string): void {
  if (!absent(v) && typeof v !== 'boolean') throw invalidParam(param, `${param} must be true or false`);
}

function string(v: unknown, param: string): void {
  if (!absent(v) && typeof v !== 'string') throw invalidParam(param, `${param} must be a string`);
}

function object(v: unknown, param: string): void {
  if (!absent(v) && !isObject(v)) throw invalidParam(param, `${param} must be an object`);
}

/** An array whose every entry is an object (or, with `strings`, a string too). */
function listOf(v: unknown, param: string, required: boolean, strings = false): v is unknown[] {
  if (absent(v)) {
    if (required) throw invalidParam(param, `${param} is required`);
    return false;
  }
  if (!Array.isArray(v)) throw invalidParam(param, `${param} must be an array`);
  for (let i = 0; i < v.length; i++) {
    const e = v[i];
    if (!isObject(e) && !(strings && typeof e === 'string'))
      throw invalidParam(`${param}[${i}]`, `${param}[${i}] must be an object${strings ? ' or a string' : ''}`);
  }
  return true;
}

/** Text parts (their `text` must be a string) by the type names the protocols give them. */
const TEXT_PART_TYPES = new Set(['text', 'input_text', 'output_text']);

/** A content part or block: an object with a string `type`; a text part's `text` a string. */
function typedPart(v: unknown, param: string): void {
  if (!isObject(v)) throw invalidParam(param, `${param} must be an object`);
  if (typeof v.type !== 'string') throw invalidParam(`${param}.type`, `${param}.type must be a string`);
  if (TEXT_PART_TYPES.has(v.type) && typeof v.text !== 'string')
    throw invalidParam(`${param}.text`, `${param}.text must be a string`);
}

/** Text or a list of typed content parts (`strings`: bare strings tolerated among them, as OpenAI-compatible servers do). */
function content(v: unknown, param: string, strings: boolean): void {
  if (typeof v === 'string') return;
  if (!Array.isArray(v)) throw invalidParam(param, `${param} must be a string or an array of content parts`);
  for (let j = 0; j < v.length; j++) if (!(strings && typeof v[j] === 'string')) typedPart(v[j], `${param}[${j}]`);
}

/** A message list that must hold at least one message. */
function messageList(v: unknown, param: string): v is Json[] {
  listOf(v, param, true);
  if ((v as unknown[]).length === 0) throw invalidParam(param, `${param} must hold at least one message`);
  return true;
}

/** An OpenAI assistant message may carry tool calls (or a refusal, or audio) instead of content. */
const contentOptional = (m: Json): boolean =>
  m.role === 'assistant' &&
  ((Array.isArray(m.tool_calls) && m.tool_calls.length > 0) ||
    isObject(m.function_call) ||
    isObject(m.audio) ||
    typeof m.refusal === 'string');

/** OpenAI chat messages: a string role; content text or typed parts, required unless an assistant message carries tool calls. */
function chatMessages(v: unknown, param: string): void {
  if (!messageList(v, param)) return;
  for (let i = 0; i < v.length; i++) {
    const m = v[i]!;
    if (typeof m.role !== 'string') throw invalidParam(`${param}[${i}].role`, `${param}[${i}].role must be a string`);
    if (!absent(m.content) || !contentOptional(m)) content(m.content, `${param}[${i}].content`, true);
    listOf(m.tool_calls, `${param}[${i}].tool_calls`, false);
  }
}

/** Anthropic messages (as Anthropic checks them): role user or assistant, content text or content blocks, never null. */
function anthropicMessages(v: unknown, param: string): void {
  if (!messageList(v, param)) return;
  for (let i = 0; i < v.length; i++) {
    const m = v[i]!;
    if (m.role !== 'user' && m.role !== 'assistant')
      throw invalidParam(`${param}[${i}].role`, `${param}[${i}].role must be "user" or "assistant"`);
    content(m.content, `${param}[${i}].content`, false);
  }
}

/** Responses input: text, or items; a message item (a role, type absent or "message") has text or typed parts as content. */
function responsesInput(v: unknown): void {
  if (absent(v) || typeof v === 'string') return;
  listOf(v, 'input', false, true);
  const items = v as unknown[];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isObject(item) || !(item.type === 'message' || (item.type === undefined && 'role' in item))) continue;
    if (typeof item.role !== 'string') throw invalidParam(`input[${i}].role`, `input[${i}].role must be a string`);
    content(item.content, `input[${i}].content`, false);
  }
}

/** Gemini parts: objects each carrying some data (text, inlineData, fileData, a function call or response …), text a string. */
function geminiParts(v: unknown, param: string, required: boolean, allowEmpty: boolean): void {
  if (!listOf(v, param, required)) return;
  if (!allowEmpty && v.length === 0) throw invalidParam(param, `${param} must not be empty`);
  for (let j = 0; j < v.length; j++) {
    const part = v[j] as Json;
    if (!Object.values(part).some((x) => !absent(x)))
      throw invalidParam(
        `${param}[${j}]`,
        `${param}[${j}] must carry data (text, inlineData, fileData, functionCall or functionResponse)`,
      );
    if (!absent(part.text) && typeof part.text !== 'string')
      throw invalidParam(`${param}[${j}].text`, `${param}[${j}].text must be a string`);
  }
}

/** The sampling fields most protocols share under these names. */
function sampling(b: Json): void {
  boolean(b.stream, 'stream');
  finiteNumber(b.temperature, 'temperature', 0, MAX_TEMPERATURE);
  finiteNumber(b.top_p, 'top_p', 0, 1);
}

/** The model named in a body, when the protocol puts it there. */
export function bodyModel(b: Json): string {
  const m = b.model;
  if (absent(m) || m === '') return '';
  if (typeof m !== 'string') throw invalidParam('model', 'model must be a string');
  const model = m.trim();
  if (model.length > MAX_MODEL_NAME) throw invalidParam('model', `model must be at most ${MAX_MODEL_NAME} characters`);
  return model;
}

/** A string or an array of inputs without null entries (embeddings, moderations, completions' prompt). */
function inputs(v: unknown, param: string, required: boolean): void {
  if (absent(v)) {
    if (required) throw invalidParam(param, `${param} is required`);
    return;
  }
  if (typeof v === 'string') return;
  if (!Array.isArray(v)) throw invalidParam(param, `${param} must be a string or an array`);
  for (let i = 0; i < v.length; i++)
    if (v[i] === null || typeof v[i] === 'boolean')
      throw invalidParam(`${param}[${i}]`, `${param}[${i}] must be a string, a number, an array or an object`);
}

/** OpenAI Chat Completions and the other OpenAI JSON endpoints; returns the completion token limit. */
export function checkOpenAI(b: Json, endpoint: OpenAIEndpoint): number {
  sampling(b);
  object(b.stream_options, 'stream_options');
  finiteNumber(b.presence_penalty, 'presence_penalty');
  finiteNumber(b.frequency_penalty, 'frequency_penalty');
  choiceCount(b.n, 'n');
  if (endpoint === 'chat') {
    chatMessages(b.messages, 'messages');
    listOf(b.tools, 'tools', false);
    object(b.response_format, 'response_format');
  } else if (endpoint === 'completions') inputs(b.prompt, 'prompt', false);
  else inputs(b.input, 'input', true);
  const max = tokenLimit(b.max_tokens, 'max_tokens');
  const maxCompletion = tokenLimit(b.max_completion_tokens, 'max_completion_tokens');
  return maxCompletion || max;
}

/** Anthropic Messages (and count_tokens, where max_tokens is not used); returns max_tokens. */
export function checkAnthropic(b: Json): number {
  sampling(b);
  finiteNumber(b.top_k, 'top_k');
  anthropicMessages(b.messages, 'messages');
  if (!absent(b.system)) content(b.system, 'system', false);
  listOf(b.tools, 'tools', false);
  object(b.metadata, 'metadata');
  object(b.thinking, 'thinking');
  return tokenLimit(b.max_tokens, 'max_tokens');
}

/** OpenAI Responses; returns max_output_tokens. */
export function checkResponses(b: Json): number {
  sampling(b);
  responsesInput(b.input);
  string(b.instructions, 'instructions');
  listOf(b.tools, 'tools', false);
  object(b.reasoning, 'reasoning');
  object(b.text, 'text');
  return tokenLimit(b.max_output_tokens, 'max_output_tokens');
}

/** Gemini generateContent / streamGenerateContent; returns generationConfig.maxOutputTokens. */
export function checkGemini(b: Json): number {
  if (!listOf(b.contents, 'contents', true)) return 0;
  for (let i = 0; i < b.contents.length; i++) {
    const c = (b.contents as Json[])[i]!;
    string(c.role, `contents[${i}].role`);
    geminiParts(c.parts, `contents[${i}].parts`, true, false);
  }
  object(b.systemInstruction, 'systemInstruction');
  if (isObject(b.systemInstruction)) geminiParts(b.systemInstruction.parts, 'systemInstruction.parts', false, true);
  listOf(b.tools, 'tools', false);
  object(b.generationConfig, 'generationConfig');
  const g = b.generationConfig as Json | undefined;
  if (!g) return 0;
  finiteNumber(g.temperature, 'generationConfig.temperature', 0, MAX_TEMPERATURE);
  finiteNumber(g.topP, 'generationConfig.topP', 0, 1);
  finiteNumber(g.topK, 'generationConfig.topK');
  choiceCount(g.candidateCount, 'generationConfig.candidateCount');
  return tokenLimit(g.maxOutputTokens, 'generationConfig.maxOutputTokens');
}

/** A Gemini embedding request (`at`: its path in the body, '' for the body itself): content.parts, every part an object. */
export function checkGeminiEmbed(r: unknown, at: string): void {
  const p = at ? `${at}.` : '';
  if (!isObject(r)) throw invalidParam(at, `${at} must be an object`);
  if (!isObject(r.content)) throw invalidParam(`${p}content`, `${p}content is required`);
  listOf(r.content.parts, `${p}content.parts`, true);
  tokenLimit(r.outputDimensionality, `${p}outputDimensionality`);
}

/** Images generations: the fields that price and shape the call. */
export function checkImageFields(b: Json): void {
  string(b.size, 'size');
  string(b.quality, 'quality');
  string(b.response_format, 'response_format');
  boolean(b.stream, 'stream');
}

/** Text to speech: voice, format and speed. */
export function checkSpeechFields(b: Json): void {
  string(b.voice, 'voice');
  string(b.response_format, 'response_format');
  string(b.stream_format, 'stream_format');
  finiteNumber(b.speed, 'speed', MIN_SPEECH_SPEED, MAX_SPEECH_SPEED);
}
