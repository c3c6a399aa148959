import type { RelayRequest } from '../request.js';
import { relayErrors } from '../errors.js';
import { bodyModel, checkSpeechFields, invalidParam } from '../validate.js';
import { parseJsonBody } from '../inbound.js';
import { openAIChat } from '../ir/openai-chat.js';
import type { CallUsage } from '../usage.js';
import { parseData } from '../ir/json-data.js';
import { multipartInbound } from './multipart-inbound.js';
import { spooledBody } from './spool.js';
import { cannotServe, countedUsage, forwardBuffered, forwardPassThrough, openAITarget, type Answer, type Metered } from './upstream.js';
import type { InboundCall, Surface } from '../types.js';

/**
 * POST /v1/audio/speech: the audio streams back as the upstream sends it. Billed by input characters as
 * new-api does: the characters are the prompt tokens at a model ratio; at a model price the price is per
 * 1,000 characters (tts-1's $0.015 is OpenAI's price per 1K characters).
 */
export function speechInbound(req: RelayRequest): InboundCall {
  const body = parseJsonBody(req.body);
  const model = bodyModel(body);
  if (!model) throw relayErrors.noModel();
  if (typeof body.input !== 'string' || !body.input) throw invalidParam('input', 'input is required');
  checkSpeechFields(body);
  const characters = [...body.input].length;
  const usage: CallUsage = { promptTokens: characters, completionTokens: 0, reported: false, units: characters / 1000 };
  const surface: Surface = {
    forward(a) {
      const t = openAITarget(a, '/v1/audio/speech');
      if (!t) return Promise.resolve(cannotServe(a, '/v1/audio/speech'));
      const upstream = JSON.stringify({ ...body, model: a.model, ...a.channel.paramOverride });
      return forwardPassThrough(a, t, upstream, body.stream_format === 'sse', () => usage);
    },
  };
  // The reservation's prompt estimate is bytes / 3: three per character reserves exactly the characters.
  return { format: openAIChat, body, model, stream: false, includeUsage: false, maxTokens: 0, bytes: characters * 3, surface, units: usage.units };
}

interface TranscriptionJson {
  text?: string;
  duration?: number;
  usage?: { type?: string; seconds?: number; input_tokens?: number; output_tokens?: number; input_token_details?: { audio_tokens?: number } };
}

/**
 * Usage of a transcription or translation answer. Token usage (gpt-4o-transcribe) is billed as tokens;
 * a duration (`usage.seconds`, or verbose_json's `duration`) makes the units minutes of audio for a model
 * price (whisper-1's $0.006 is per minute) while a model ratio bills the text; otherwise the text's tokens.
 */
export function transcriptionUsage(answer: Answer, prompt: string): CallUsage {
  const json = answer.contentType.includes('json') ? (parseData(answer.text) as TranscriptionJson | undefined) : undefined;
  const u = json?.usage;
  if (u?.type === 'tokens' && typeof u.input_tokens === 'number') {
    return { promptTokens: u.input_tokens, completionTokens: u.output_tokens ?? 0, reported: true };
  }
  const text = json ? (json.text ?? '') : answer.text;
  const seconds = u?.type === 'duration' && typeof u.seconds === 'number' ? u.seconds : json?.duration;
  const counted = countedUsage(prompt, text);
  if (typeof seconds === 'number' && seconds >= 0) return { ...counted, units: Number((seconds / 60).toFixed(6)) };
  return counted;
}

/** POST /v1/audio/transcriptions and /v1/audio/translations (multipart, the audio streamed from a spool). */
export const audioTextInbound = (path: '/v1/audio/transcriptions' | '/v1/audio/translations') =>
  multipartInbound((spool) => {
    const prompt = spool.fields.prompt ?? '';
    const streamed = spool.fields.stream === 'true';
    const surface: Surface = {
      forward(a) {
        const t = openAITarget(a, path, spool.contentType);
        if (!t) return Promise.resolve(cannotServe(a, path));
        const { body, length } = spooledBody(spool, { model: a.model });
        t.headers['content-length'] = String(length);
        // Streamed transcripts (gpt-4o-transcribe, stream=true) pass through; transcript.text.done carries the usage.
        if (streamed) return forwardPassThrough(a, t, body, true, (u) => u ?? countedUsage(prompt));
        return forwardBuffered(a, t, body, (answer): Metered => ({
          out: answer.text,
          contentType: answer.contentType || 'application/json',
          usage: transcriptionUsage(answer, prompt),
        }));
      },
    };
    return { surface, bytes: Buffer.byteLength(prompt), stream: streamed };
  });
