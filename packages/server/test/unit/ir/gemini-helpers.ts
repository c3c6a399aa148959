import { readFileSync } from 'node:fs';
import { geminiGenerate } from '../../../src/relay/providers/gemini/convert.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRRequest, IRStreamEvent } from '../../../src/relay/ir/types.js';

/** Shared by the Gemini request and answer tests. */
export const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/ir/gemini/${name}`, import.meta.url), 'utf8');
export const json = <T = Record<string, unknown>>(name: string): T => JSON.parse(fixture(name)) as T;

/** Splits SSE text in awkward places, as a network would. */
export function events(text: string, step = 37) {
  const splitter = new SseSplitter();
  const out = [];
  for (let i = 0; i < text.length; i += step) out.push(...splitter.push(text.slice(i, i + step)));
  return [...out, ...splitter.flush()];
}

export function decodeGemini(text: string): IRStreamEvent[] {
  const state = geminiGenerate.newDecodeState();
  return [...events(text).flatMap((e) => geminiGenerate.decodeEvent(state, e)), ...geminiGenerate.finish(state)];
}

export function encodeGemini(evs: IRStreamEvent[], model = 'gemini-2.5-flash'): string {
  const state = geminiGenerate.newEncodeState(model);
  return evs.map((e) => geminiGenerate.encodeEvent(state, e)).join('');
}

/** Stream events without the usage the first chunk carries on 'start' (the encoder does not send it there). */
export const withoutStartUsage = (events: IRStreamEvent[]): IRStreamEvent[] =>
  events.map((e) => (e.type === 'start' ? { type: 'start', id: e.id, model: e.model } : e));
export const usage = (input: number, output: number, cacheRead = 0, reasoning = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: 0,
  reasoningTokens: reasoning,
});

export const baseIR = (over: Partial<IRRequest>): IRRequest => ({
  model: 'gemini-2.5-flash',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
  stream: false,
  ...over,
});
