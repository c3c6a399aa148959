import { groundingToolCalls, withToolCalls } from '../../ir/tool-calls.js';
import { geminiTokenKinds } from '../../ir/token-kinds.js';
import { parseData } from '../../ir/json-data.js';
import { imageFromUrl } from '../openai/chat.js';
import { sse } from '../../ir/sse.js';
import { emptyUsage, type IRPart, type IRStopReason, type IRStreamEvent, type IRUsage } from '../../ir/types.js';
import type { GeminiCandidate, GeminiFunctionResponse, GeminiPart, GeminiResponse, GeminiUsage } from './wire.js';

/**
 * Gemini generateContent, the part shared by whole responses and alt=sse streams: usage, finish reasons,
 * parts in both directions, and the per-event stream transforms. Request conversion lives in gemini.ts.
 */

/**
 * Gemini usageMetadata → IR usage. promptTokenCount includes cachedContentTokenCount (so input = prompt − cached),
 * tool-use prompt tokens are billed as input, and thoughts are billed as output: outputTokens = candidates +
 * thoughts, reasoningTokens = thoughts (the same meaning as OpenAI's completion_tokens / reasoning_tokens).
 */
export function geminiUsageToIR(u: GeminiUsage | undefined | null): IRUsage {
  if (!u) return emptyUsage();
  const cached = Number(u.cachedContentTokenCount ?? 0);
  const thoughts = Number(u.thoughtsTokenCount ?? 0);
  return {
    inputTokens: Math.max(0, Number(u.promptTokenCount ?? 0) + Number(u.toolUsePromptTokenCount ?? 0) - cached),
    outputTokens: Number(u.candidatesTokenCount ?? 0) + thoughts,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
    ...kindsOf(u),
  };
}

function kindsOf(u: GeminiUsage): Pick<IRUsage, 'kinds'> {
  const kinds = geminiTokenKinds(u.promptTokensDetails, u.candidatesTokensDetails);
  return kinds ? { kinds } : {};
}

/** IR usage → usageMetadata. Gemini has no cache writes: they are counted in the prompt. */
export function geminiUsageFromIR(u: IRUsage): GeminiUsage {
  const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, u.outputTokens - u.reasoningTokens),
    totalTokenCount: prompt + u.outputTokens,
    ...(u.cacheReadTokens ? { cachedContentTokenCount: u.cacheReadTokens } : {}),
    ...(u.reasoningTokens ? { thoughtsTokenCount: u.reasoningTokens } : {}),
  };
}

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
]);

/** STOP becomes tool_calls when the answer calls functions (Gemini has no separate reason for that). */
export function geminiFinishToIR(reason: unknown, hasCalls: boolean): IRStopReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(String(reason))) return 'content_filter';
  if (reason === 'MALFORMED_FUNCTION_CALL' || reason === 'UNEXPECTED_TOOL_CALL') return 'error';
  return hasCalls ? 'tool_calls' : 'stop';
}

export const geminiFinishFromIR: Record<IRStopReason, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  error: 'OTHER',
};

/** Ids for function calls that came without one: `call_<n>`, or `call_<responseId>_<n>` in answers so turns never collide. */
export const geminiCallId = (n: number, responseId = ''): string =>
  responseId ? `call_${responseId}_${n}` : `call_${n}`;

/** Function arguments as the object Gemini wants (`args` is a Struct); anything else becomes {}. */
export function argsObject(args: string): Record<string, unknown> {
  try {
    const v = JSON.parse(args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export function audioFormat(mimeType: string): string {
  const sub = mimeType.split('/')[1]?.split(';')[0] ?? 'wav';
  return sub === 'mpeg' ? 'mp3' : sub === 'x-wav' || sub === 'wave' ? 'wav' : sub;
}

const EXT_MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};
const mimeFromUrl = (url: string): string =>
  EXT_MIME[/\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase() ?? ''] ?? 'image/jpeg';

/**
 * Gemini parts (except functionResponse) → IR parts. A thoughtSignature on a part that is not a thought
 * (Gemini puts them on functionCall parts and on empty text parts) becomes an empty thinking part carrying
 * the signature just before it, so that it survives the trip and goes back on the same part.
 */
export function geminiPartsToIR(parts: unknown, nextCallId: () => string): IRPart[] {
  const out: IRPart[] = [];
  for (const p of (Array.isArray(parts) ? parts : []) as GeminiPart[]) {
    if (!p || typeof p !== 'object') continue;
    const signature = typeof p.thoughtSignature === 'string' && p.thoughtSignature ? p.thoughtSignature : undefined;
    if (p.thought === true) {
      out.push({ type: 'thinking', text: String(p.text ?? ''), ...(signature ? { signature } : {}) });
      continue;
    }
    if (signature) out.push({ type: 'thinking', text: '', signature });
    if (typeof p.text === 'string') {
      if (p.text) out.push({ type: 'text', text: p.text });
    } else if (p.inlineData) {
      const mime = String(p.inlineData.mimeType ?? 'application/octet-stream');
      const data = String(p.inlineData.data ?? '');
      out.push(
        mime.startsWith('audio/')
          ? { type: 'audio', data, format: audioFormat(mime) }
          : { type: 'image', data, mediaType: mime },
      );
    } else if (p.fileData) {
      out.push({
        type: 'image',
        url: String(p.fileData.fileUri ?? ''),
        ...(p.fileData.mimeType ? { mediaType: String(p.fileData.mimeType) } : {}),
      });
    } else if (p.functionCall) {
      const fc = p.functionCall;
      out.push({
        type: 'tool_call',
        id: fc.id ? String(fc.id) : nextCallId(),
        name: String(fc.name ?? ''),
        arguments: JSON.stringify(fc.args ?? {}),
      });
    }
  }
  return out;
}

export interface PartsFromIROptions {
  /** Request history: thinking without a signature is dropped (Gemini needs only the signatures back). */
  history?: boolean;
  /** Put IR tool-call ids on functionCall parts (answers to clients; not sent upstream). */
  ids?: boolean;
  /** Function name and response object for a tool result; without it tool results are skipped. */
  toolResult?: (p: Extract<IRPart, { type: 'tool_result' }>) => GeminiFunctionResponse;
}

/** IR parts → Gemini parts; a signature-only thinking part puts its signature on the next part. */
export function geminiPartsFromIR(parts: IRPart[], opts: PartsFromIROptions = {}): GeminiPart[] {
  const out: GeminiPart[] = [];
  let pending: string | undefined;
  const push = (part: GeminiPart) => {
    out.push(pending ? { ...part, thoughtSignature: pending } : part);
    pending = undefined;
  };
  for (const p of parts) {
    switch (p.type) {
      case 'thinking':
        if (p.redacted) break;
        if (!p.text) pending = p.signature ?? pending;
        else if (p.signature || !opts.history) {
          if (pending) push({ text: '' });
          out.push({ text: p.text, thought: true, ...(p.signature ? { thoughtSignature: p.signature } : {}) });
        }
        break;
      case 'text':
        push({ text: p.text });
        break;
      case 'image': {
        const inline = p.data !== undefined ? { mimeType: p.mediaType ?? 'image/png', data: p.data } : undefined;
        const fromUrl = p.url !== undefined && !inline ? imageFromUrl(p.url) : undefined;
        if (inline) push({ inlineData: inline });
        else if (fromUrl?.type === 'image' && fromUrl.data !== undefined)
          push({ inlineData: { mimeType: fromUrl.mediaType ?? 'image/png', data: fromUrl.data } });
        else if (p.url) push({ fileData: { mimeType: p.mediaType ?? mimeFromUrl(p.url), fileUri: p.url } });
        break;
      }
      case 'audio':
        push({ inlineData: { mimeType: `audio/${p.format}`, data: p.data } });
        break;
      case 'tool_call':
        push({
          functionCall: { ...(opts.ids && p.id ? { id: p.id } : {}), name: p.name, args: argsObject(p.arguments) },
        });
        break;
      case 'tool_result':
        if (opts.toolResult) push({ functionResponse: opts.toolResult(p) });
        break;
    }
  }
  if (pending) push({ text: '' });
  return out;
}

export interface GeminiDecodeState {
  started: boolean;
  ended: boolean;
  /** The latest finish reason seen (BLOCKED for a blocked prompt); it is reported when the stream ends. */
  finish?: string;
  responseId: string;
  /** Function calls seen so far (their stream indexes). */
  calls: number;
  /** The latest usageMetadata, reported when the stream ends. */
  usage?: GeminiUsage;
  /** A chunk said the answer was grounded with Google Search (priced as a tool call when the stream ends). */
  grounded?: boolean;
}

/** Stands for a prompt blocked before any candidate (promptFeedback.blockReason). */
const BLOCKED = 'BLOCKED';

export const newGeminiDecodeState = (): GeminiDecodeState => ({
  started: false,
  ended: false,
  responseId: '',
  calls: 0,
});

/**
 * One alt=sse event (a whole GenerateContentResponse chunk) → IR events. The finish reason and usage are only
 * remembered: some Gemini versions put finishReason (and usage) on every chunk, so the answer stops only when
 * the stream ends (`finishGeminiDecode`).
 */
export function decodeGeminiEvent(state: GeminiDecodeState, { data }: { data: string }): IRStreamEvent[] {
  if (data.trim() === '[DONE]') return finishGeminiDecode(state);
  const j = parseData(data) as GeminiResponse | undefined;
  if (!j) return [];
  const out: IRStreamEvent[] = [];
  if (!state.started) {
    state.started = true;
    state.responseId = String(j.responseId ?? '');
    out.push({
      type: 'start',
      id: state.responseId,
      model: String(j.modelVersion ?? ''),
      ...(j.usageMetadata ? { usage: geminiUsageToIR(j.usageMetadata) } : {}),
    });
  }
  if (j.error) {
    out.push({ type: 'error', message: String(j.error.message ?? 'upstream error') });
    return out;
  }
  if (j.usageMetadata) state.usage = j.usageMetadata;
  const cand: GeminiCandidate = j.candidates?.[0] ?? {};
  let n = state.calls;
  for (const p of geminiPartsToIR(cand.content?.parts, () => geminiCallId(n++, state.responseId))) {
    if (p.type === 'thinking')
      out.push({ type: 'thinking', text: p.text, ...(p.signature ? { signature: p.signature } : {}) });
    else if (p.type === 'text') out.push({ type: 'text', text: p.text });
    else if (p.type === 'tool_call') {
      const index = state.calls++;
      out.push(
        { type: 'tool_call_start', index, id: p.id, name: p.name },
        { type: 'tool_call_args', index, args: p.arguments },
      );
    }
  }
  if (groundingToolCalls(j.candidates)) state.grounded = true;
  if (cand.finishReason) state.finish = String(cand.finishReason);
  else if (!j.candidates?.length && j.promptFeedback?.blockReason) state.finish = BLOCKED;
  return out;
}

/** The stream's end (Gemini sends no terminator): the stop reason and usage remembered, then 'end'. */
export function finishGeminiDecode(state: GeminiDecodeState): IRStreamEvent[] {
  if (state.ended) return [];
  state.ended = true;
  const out: IRStreamEvent[] = [];
  if (state.finish)
    out.push({
      type: 'stop',
      reason: state.finish === BLOCKED ? 'content_filter' : geminiFinishToIR(state.finish, state.calls > 0),
    });
  if (state.usage)
    out.push({
      type: 'usage',
      usage: withToolCalls(geminiUsageToIR(state.usage), state.grounded ? { google_search: 1 } : undefined),
    });
  out.push({ type: 'end' });
  return out;
}

export interface GeminiEncodeState {
  id: string;
  model: string;
  /** Function calls whose arguments are still arriving, by stream index. */
  calls: Map<number, { id: string; name: string; args: string; signature?: string }>;
  /** A signature waiting for the next part. */
  signature?: string;
  stop?: IRStopReason;
  usage?: IRUsage;
  /** The final chunk (finishReason + usageMetadata) has gone out. */
  finished: boolean;
}

export const newGeminiEncodeState = (model: string): GeminiEncodeState => ({
  id: `resp_${Date.now().toString(36)}`,
  model,
  calls: new Map(),
  finished: false,
});

const geminiChunk = (s: GeminiEncodeState, parts: GeminiPart[], finishReason?: string, usage?: IRUsage): string =>
  sse({
    candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    ...(usage ? { usageMetadata: geminiUsageFromIR(usage) } : {}),
    modelVersion: s.model,
    responseId: s.id,
  } satisfies GeminiResponse);

/** Buffered function calls go out whole, in one chunk, when the next block starts or the answer stops. */
function flushCalls(s: GeminiEncodeState): string {
  if (!s.calls.size) return '';
  const parts = [...s.calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, c]) => ({
      functionCall: { id: c.id, name: c.name, args: argsObject(c.args) },
      ...(c.signature ? { thoughtSignature: c.signature } : {}),
    }));
  s.calls.clear();
  return geminiChunk(s, parts);
}

function finalChunk(s: GeminiEncodeState): string {
  s.finished = true;
  const part = { text: '', ...(s.signature ? { thoughtSignature: s.signature } : {}) };
  s.signature = undefined;
  return geminiChunk(s, [part], geminiFinishFromIR[s.stop ?? 'stop'], s.usage);
}

/**
 * IR event → alt=sse text. 'stop' and 'usage' make one final chunk: it goes out on the first 'usage' after
 * 'stop', or at 'end'; usage arriving before 'stop' is kept until then. 'end' writes no terminator.
 */
export function encodeGeminiEvent(s: GeminiEncodeState, e: IRStreamEvent): string {
  switch (e.type) {
    case 'start':
      if (e.id) s.id = e.id;
      return '';
    case 'text': {
      const part = { text: e.text, ...(s.signature ? { thoughtSignature: s.signature } : {}) };
      s.signature = undefined;
      return flushCalls(s) + geminiChunk(s, [part]);
    }
    case 'thinking':
      if (!e.text) {
        if (e.signature) s.signature = e.signature;
        return '';
      }
      return (
        flushCalls(s) +
        geminiChunk(s, [{ text: e.text, thought: true, ...(e.signature ? { thoughtSignature: e.signature } : {}) }])
      );
    case 'tool_call_start':
      s.calls.set(e.index, { id: e.id, name: e.name, args: '', ...(s.signature ? { signature: s.signature } : {}) });
      s.signature = undefined;
      return '';
    case 'tool_call_args': {
      const c = s.calls.get(e.index);
      if (c) c.args += e.args;
      return '';
    }
    case 'stop':
      s.stop = e.reason;
      return flushCalls(s);
    case 'usage':
      if (s.finished) return '';
      s.usage = e.usage;
      return s.stop ? finalChunk(s) : '';
    case 'error':
      return flushCalls(s) + sse({ error: { code: 500, message: e.message, status: 'INTERNAL' } });
    case 'end': {
      const calls = flushCalls(s);
      return calls + (!s.finished && (s.stop || s.usage || s.signature) ? finalChunk(s) : '');
    }
  }
}
