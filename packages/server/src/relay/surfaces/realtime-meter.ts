import type { RawData } from 'ws';
import { countTextTokens } from '../pipeline/token-count.js';
import type { CallUsage } from '../billing/usage.js';
import { realtimeTranscriptionUsage } from './audio-usage.js';

/**
 * What each server event of a realtime session is worth, read as the client receives it. The value is in
 * output tokens, estimated from what the frame carries (the upstream reports exact usage only at the end of a
 * response or transcription, which a client can cut off): text deltas by their o200k tokens, audio deltas by
 * their length at the rate OpenAI bills output audio.
 */

/** OpenAI bills output audio at one token per 50 ms (20 tokens a second: $0.24 a minute at $200 per 1M tokens). */
export const AUDIO_TOKENS_PER_SECOND = 20;
/** PCM16 at 24 kHz mono (`pcm16`, `audio/pcm`): 48,000 bytes a second. */
const PCM16_BYTES_PER_SECOND = 48_000;
/** G.711 μ-law or A-law at 8 kHz (`g711_ulaw`, `g711_alaw`, `audio/pcmu`, `audio/pcma`): 8,000 bytes a second. */
const G711_BYTES_PER_SECOND = 8_000;

/** Bytes of decoded audio per output token for a session's output format (PCM16, the default, when unknown). */
export function audioBytesPerToken(format: unknown): number {
  const name =
    typeof format === 'string'
      ? format
      : format && typeof format === 'object'
        ? (format as { type?: unknown }).type
        : undefined;
  const g711 = name === 'g711_ulaw' || name === 'g711_alaw' || name === 'audio/pcmu' || name === 'audio/pcma';
  return (g711 ? G711_BYTES_PER_SECOND : PCM16_BYTES_PER_SECOND) / AUDIO_TOKENS_PER_SECOND;
}

/** A billable unit of a session: a response (by its id) or the transcription of an input audio item. */
export type UnitKind = 'response' | 'transcription';

/** One server event as billing reads it. */
export type MeteredEvent =
  /** Part of a unit's output: this many more text tokens and bytes of audio delivered when it is passed on. */
  | { kind: 'delta'; unit: string; unitKind: UnitKind; textTokens: number; audioBytes: number }
  /** The end of a unit, with the upstream's usage when it reported one. */
  | { kind: 'done'; unit: string; unitKind: UnitKind; usage: CallUsage | undefined }
  /** A response begins (no value yet). */
  | { kind: 'created'; unit: string }
  /** The session's settings as the upstream states them. */
  | { kind: 'session'; outputFormat: unknown; transcriptionModel: string | undefined };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Output deltas whose `delta` is text (tokens) or base64 audio (bytes). Beta and GA names. */
const TEXT_DELTAS = new Set([
  'response.text.delta',
  'response.output_text.delta',
  'response.audio_transcript.delta',
  'response.output_audio_transcript.delta',
  'response.function_call_arguments.delta',
]);
const AUDIO_DELTAS = new Set(['response.audio.delta', 'response.output_audio.delta']);

const TRANSCRIPTION = 'conversation.item.input_audio_transcription.';

interface RealtimeUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_token_details?: { cached_tokens?: number };
}

/** A `response.done` event's usage as billing reads it (OpenAI semantics: audio and cached tokens inside input). */
export function realtimeUsage(usage: unknown): CallUsage | undefined {
  const u = (isObject(usage) ? usage : {}) as RealtimeUsage;
  if (typeof u.input_tokens !== 'number') return undefined;
  return {
    promptTokens: u.input_tokens,
    completionTokens: u.output_tokens ?? 0,
    cachedTokens: u.input_token_details?.cached_tokens ?? 0,
    reported: true,
  };
}

const transcriptionUnit = (e: Json): string =>
  `transcription:${str(e.item_id)}:${typeof e.content_index === 'number' ? e.content_index : 0}`;

/** The session's transcription model and output format from a session.created / session.updated (beta and GA shapes). */
function sessionEvent(session: unknown): MeteredEvent | undefined {
  if (!isObject(session)) return undefined;
  const audio = isObject(session.audio) ? session.audio : {};
  const input = isObject(audio.input) ? audio.input : {};
  const output = isObject(audio.output) ? audio.output : {};
  const transcription = isObject(session.input_audio_transcription)
    ? session.input_audio_transcription
    : isObject(input.transcription)
      ? input.transcription
      : {};
  return {
    kind: 'session',
    outputFormat: session.output_audio_format ?? output.format,
    transcriptionModel: str(transcription.model) || undefined,
  };
}

/** What a parsed server event is worth; undefined for events that carry nothing billable. */
export function meterEvent(e: unknown): MeteredEvent | undefined {
  if (!isObject(e)) return undefined;
  const type = str(e.type);
  if (AUDIO_DELTAS.has(type) || TEXT_DELTAS.has(type)) {
    const delta = str(e.delta);
    const audio = AUDIO_DELTAS.has(type);
    return {
      kind: 'delta',
      unit: `response:${str(e.response_id)}`,
      unitKind: 'response',
      textTokens: audio ? 0 : countTextTokens(delta),
      // Audio tokens are counted by the session, which knows its output format; here the decoded bytes.
      audioBytes: audio ? Buffer.byteLength(delta, 'base64') : 0,
    };
  }
  if (type === 'response.created' && isObject(e.response))
    return { kind: 'created', unit: `response:${str(e.response.id)}` };
  if (type === 'response.done') {
    const response = isObject(e.response) ? e.response : {};
    return {
      kind: 'done',
      unit: `response:${str(response.id)}`,
      unitKind: 'response',
      usage: realtimeUsage(response.usage),
    };
  }
  if (type.startsWith(TRANSCRIPTION)) {
    const event = type.slice(TRANSCRIPTION.length);
    if (event === 'delta' || event === 'segment')
      return {
        kind: 'delta',
        unit: transcriptionUnit(e),
        unitKind: 'transcription',
        textTokens: countTextTokens(str(e.delta) || str(e.text)),
        audioBytes: 0,
      };
    if (event === 'completed')
      return {
        kind: 'done',
        unit: transcriptionUnit(e),
        unitKind: 'transcription',
        usage: realtimeTranscriptionUsage(e.usage, str(e.transcript)),
      };
    if (event === 'failed')
      return { kind: 'done', unit: transcriptionUnit(e), unitKind: 'transcription', usage: undefined };
    return undefined;
  }
  if (type === 'session.created' || type === 'session.updated') return sessionEvent(e.session);
  return undefined;
}

/** A text frame parsed as JSON (undefined for binary frames and anything else). */
export function parseFrame(data: RawData, isBinary: boolean): unknown {
  if (isBinary) return undefined;
  const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
}
