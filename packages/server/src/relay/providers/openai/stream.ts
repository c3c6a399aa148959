import type { CappedText } from '../../pipeline/capped-text.js';
import { fromOpenAIUsage, type CallUsage } from '../../billing/usage.js';
import { holdsDeltaText, holdsUsageObject } from './stream-markers.js';

/**
 * Per-chunk transform of an OpenAI SSE stream, with explicit state. Bytes are passed on as events complete;
 * the usage event is read (and dropped when the client did not ask for it). The text of content deltas only
 * matters if the upstream never reports usage: their events are kept unparsed in a small window and read (parsed
 * and counted) only when the window fills or the count is asked for, and not at all once usage is known. Memory
 * stays bounded either way.
 */
export interface OpenAIStreamState {
  /** Incomplete event text carried to the next chunk. */
  partial: string;
  usage: CallUsage | undefined;
  /** Data of content events not read yet (their text not yet taken), and their length in characters. */
  unread: string[];
  unreadChars: number;
  /** Content text not yet counted. */
  pendingText: string;
  /** Completion tokens counted from content so far. */
  countedTokens: number;
  sawDone: boolean;
  events: number;
  /** The start of an oversized event was passed on and its end was not yet: the client is inside an event. */
  midEvent: boolean;
  /** The answer's text kept for the log (reasoning, content, tool-call arguments), when it is captured. */
  capture: CappedText | undefined;
}

export const newStreamState = (capture?: CappedText): OpenAIStreamState => ({
  partial: '',
  usage: undefined,
  unread: [],
  unreadChars: 0,
  pendingText: '',
  countedTokens: 0,
  sawDone: false,
  events: 0,
  midEvent: false,
  capture,
});

const COUNT_WINDOW = 4096;
/** Characters of content events kept unparsed before they are read. */
const UNREAD_WINDOW = 64 * 1024;

interface ChunkJson {
  choices?: {
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: { index?: number; function?: { arguments?: string } }[];
    };
    text?: string;
  }[];
  usage?: unknown;
}

/**
 * Consumes one chunk; returns the text to send to the client (possibly empty).
 * `countTokens` turns text into a token count (gpt-tokenizer in production).
 */
export function transformOpenAIChunk(
  state: OpenAIStreamState,
  chunk: string,
  keepUsageChunk: boolean,
  countTokens: (text: string) => number,
  /** Rewrites a usage chunk passed on (the cost receipt in it), when given. */
  usageChunk?: (event: string) => string,
): string {
  const text = state.partial + chunk;
  let out = '';
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n\n', start);
    if (end < 0) break;
    const event = text.slice(start, end + 2);
    start = end + 2;
    state.events++;
    if (inspectEvent(state, event, countTokens) === 'drop-usage') {
      if (!keepUsageChunk) continue;
      if (usageChunk) {
        out += usageChunk(event);
        continue;
      }
    }
    out += event;
  }
  state.partial = text.slice(start);
  if (start > 0) state.midEvent = false;
  if (state.partial.length > 1_000_000) {
    // A single event larger than 1 MB: pass it on rather than hold it.
    out += state.partial;
    state.partial = '';
    state.midEvent = true;
  }
  return out;
}

function inspectEvent(
  state: OpenAIStreamState,
  event: string,
  countTokens: (text: string) => number,
): 'keep' | 'drop-usage' {
  const dataAt = event.indexOf('data:');
  if (dataAt < 0) return 'keep';
  const data = event.slice(dataAt + 5).trim();
  if (data === '[DONE]') {
    state.sawDone = true;
    return 'keep';
  }
  const hasUsage = holdsUsageObject(data);
  const hasText = holdsDeltaText(data);
  if (!hasUsage && !hasText) return 'keep';
  if (!hasUsage && !state.capture) {
    // Only a count would read this text, and no count is needed once the upstream has reported usage.
    if (state.usage) return 'keep';
    state.unread.push(data);
    state.unreadChars += data.length;
    if (state.unreadChars >= UNREAD_WINDOW) readUnread(state, countTokens);
    return 'keep';
  }
  const json = parseChunk(data);
  if (!json) return 'keep';
  if (hasText) takeText(state, json, countTokens);
  if (hasUsage) {
    const usage = fromOpenAIUsage(json.usage as Parameters<typeof fromOpenAIUsage>[0]);
    if (usage) {
      state.usage = usage;
      state.unread = [];
      state.unreadChars = 0;
    }
    // The usage-only chunk (no choices) exists because we asked for it; other chunks carrying usage are content.
    if (!json.choices || json.choices.length === 0) return 'drop-usage';
  }
  return 'keep';
}

function parseChunk(data: string): ChunkJson | undefined {
  try {
    return JSON.parse(data) as ChunkJson;
  } catch {
    return undefined;
  }
}

/** Adds a chunk's delta text to the count window (counted when it fills) and to the captured answer. */
function takeText(state: OpenAIStreamState, json: ChunkJson, countTokens: (text: string) => number): void {
  if (!json.choices) return;
  for (const c of json.choices) {
    const d = c.delta;
    state.pendingText += (d?.content ?? '') + (d?.reasoning_content ?? '') + (c.text ?? '');
    for (const tc of d?.tool_calls ?? []) state.pendingText += tc.function?.arguments ?? '';
    if (state.capture) captureDelta(state.capture, d, c.text);
  }
  if (state.pendingText.length >= COUNT_WINDOW) {
    state.countedTokens += countTokens(state.pendingText);
    state.pendingText = '';
  }
}

/** Reads the content events kept unparsed. */
function readUnread(state: OpenAIStreamState, countTokens: (text: string) => number): void {
  for (const data of state.unread) {
    const json = parseChunk(data);
    if (json) takeText(state, json, countTokens);
  }
  state.unread = [];
  state.unreadChars = 0;
}

/** Adds one choice's delta to the captured answer: reasoning, content, completions text, each tool call's arguments. */
function captureDelta(
  capture: CappedText,
  d: NonNullable<NonNullable<ChunkJson['choices']>[number]['delta']> | undefined,
  text: string | undefined,
): void {
  if (d?.reasoning_content) capture.add(d.reasoning_content, 'thinking');
  if (d?.content) capture.add(d.content);
  if (text) capture.add(text);
  for (const tc of d?.tool_calls ?? [])
    if (tc.function?.arguments) capture.add(tc.function.arguments, `tool${tc.index ?? 0}`);
}

/** Completion tokens delivered so far by our own count (used when the upstream gave no usage). */
export function countedCompletionTokens(state: OpenAIStreamState, countTokens: (text: string) => number): number {
  readUnread(state, countTokens);
  if (state.pendingText) {
    state.countedTokens += countTokens(state.pendingText);
    state.pendingText = '';
  }
  return state.countedTokens;
}
