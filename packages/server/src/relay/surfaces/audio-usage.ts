import type { CallUsage } from '../billing/usage.js';
import { countTextTokens } from '../pipeline/token-count.js';

/** A transcription's `usage` as OpenAI reports it: tokens (gpt-4o-transcribe) or seconds of audio (whisper-1). */
interface TranscriptionUsageJson {
  type?: unknown;
  seconds?: unknown;
  input_tokens?: unknown;
  output_tokens?: unknown;
}

const SECONDS_PER_MINUTE = 60;

/** Minutes of audio as billable units (a model price is per minute: whisper-1's $0.006). */
export const minutesOf = (seconds: number): number => Number((seconds / SECONDS_PER_MINUTE).toFixed(6));

/**
 * The usage of a transcription: reported tokens are billed as tokens; otherwise the text's tokens are counted,
 * with the audio's minutes as the units of a model price when its duration is known (`seconds`).
 */
export function transcriptionUsageOf(
  usage: unknown,
  text: string,
  prompt: string,
  seconds: number | undefined,
): CallUsage {
  const u = (typeof usage === 'object' && usage !== null ? usage : {}) as TranscriptionUsageJson;
  if (u.type === 'tokens' && typeof u.input_tokens === 'number') {
    return {
      promptTokens: u.input_tokens,
      completionTokens: typeof u.output_tokens === 'number' ? u.output_tokens : 0,
      reported: true,
    };
  }
  const reported = u.type === 'duration' && typeof u.seconds === 'number' && u.seconds >= 0 ? u.seconds : undefined;
  const duration = reported ?? seconds;
  const counted: CallUsage = {
    promptTokens: countTextTokens(prompt),
    completionTokens: countTextTokens(text),
    reported: false,
  };
  return duration !== undefined && Number.isFinite(duration) && duration >= 0
    ? { ...counted, units: minutesOf(duration) }
    : counted;
}

/** An input audio transcription of a realtime session (its `completed` event's usage and transcript). */
export const realtimeTranscriptionUsage = (usage: unknown, transcript: string): CallUsage =>
  transcriptionUsageOf(usage, transcript, '', undefined);

const CUE_TIME = /(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{3})\s*-->\s*(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{3})/g;

/** The end of the last cue of an SRT or WebVTT transcript in seconds (a lower bound of the audio's duration). */
export function lastCueEnd(text: string): number | undefined {
  let end: number | undefined;
  for (const m of text.matchAll(CUE_TIME)) {
    const seconds = Number(m[5] ?? 0) * 3600 + Number(m[6]) * 60 + Number(m[7]) + Number(m[8]) / 1000;
    if (end === undefined || seconds > end) end = seconds;
  }
  return end;
}
