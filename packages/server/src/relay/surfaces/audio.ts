import type { RelayRequest } from '../entry/request.js';
import { relayErrors } from '../pipeline/errors.js';
import { bodyModel, checkSpeechFields, invalidParam } from '../entry/validate.js';
import { parseJsonBody } from '../entry/inbound.js';
import { openAIChat } from '../providers/openai/chat.js';
import type { CallUsage } from '../billing/usage.js';
import { parseData } from '../ir/json-data.js';
import { multipartInbound } from './multipart-inbound.js';
import { spooledBody, type MultipartSpool } from './spool.js';
import { audioSeconds } from './audio-duration.js';
import { lastCueEnd, minutesOf, transcriptionUsageOf } from './audio-usage.js';
import {
  cannotServe,
  countedUsage,
  forwardBuffered,
  forwardPassThrough,
  openAITarget,
  type Answer,
  type Metered,
} from './upstream.js';
import type { InboundCall, Surface } from '../pipeline/types.js';

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
      // The bill is known before the audio (its characters): its receipt goes in the head.
      return forwardPassThrough(a, t, upstream, body.stream_format === 'sse', () => usage, false, usage);
    },
  };
  // The reservation's prompt estimate is bytes / 3: three per character reserves exactly the characters.
  return {
    format: openAIChat,
    body,
    model,
    stream: false,
    includeUsage: false,
    maxTokens: 0,
    bytes: characters * 3,
    surface,
    units: usage.units,
  };
}

interface TranscriptionJson {
  text?: unknown;
  duration?: unknown;
  usage?: unknown;
}

/** Response formats whose answer is not JSON; `text` is asked of the upstream as `json` (see audioTextInbound). */
const CUE_FORMATS = new Set(['srt', 'vtt']);

/**
 * Usage of a transcription or translation answer, the same whatever format the client asked for. Token usage
 * (gpt-4o-transcribe) is billed as tokens; otherwise the audio's minutes are the units of a model price
 * (whisper-1's $0.006 is per minute) while a model ratio bills the text. The duration is the one the upstream
 * reports (`usage.seconds`, verbose_json's `duration`), else the longer of the uploaded file's (`fileSeconds`,
 * from its headers) and an SRT/VTT answer's last cue; with none of them, one unit of the price.
 */
export function transcriptionUsage(answer: Answer, prompt: string, fileSeconds: number | undefined): CallUsage {
  const json = answer.contentType.includes('json')
    ? (parseData(answer.text) as TranscriptionJson | undefined)
    : undefined;
  const text = json ? (typeof json.text === 'string' ? json.text : '') : answer.text;
  const cues = json ? undefined : lastCueEnd(answer.text);
  const known = [fileSeconds, cues].filter((x): x is number => x !== undefined);
  const seconds =
    typeof json?.duration === 'number' && json.duration >= 0
      ? json.duration
      : known.length
        ? Math.max(...known)
        : undefined;
  return transcriptionUsageOf(json?.usage, text, prompt, seconds);
}

/** A `json` answer given to a client that asked for `text`: the transcript as plain text, as OpenAI writes it. */
function asText(answer: Answer): Answer {
  const json = answer.contentType.includes('json')
    ? (parseData(answer.text) as TranscriptionJson | undefined)
    : undefined;
  if (!json || typeof json.text !== 'string') return answer;
  return { contentType: 'text/plain; charset=utf-8', text: `${json.text}\n` };
}

/** The duration of the upload's audio file (the `file` part), when its headers say it. */
function uploadSeconds(spool: MultipartSpool): number | undefined {
  const part = spool.parts.find((p) => p.name === 'file' && p.filename !== undefined);
  return part ? audioSeconds(spool.file, part.start, part.end) : undefined;
}

/**
 * POST /v1/audio/transcriptions and /v1/audio/translations (multipart, the audio streamed from a spool). A
 * `text` answer is asked of the upstream as `json` (which carries the usage or the duration) and answered as
 * text, so the bill never depends on the format; the reservation is the file's minutes when its headers say.
 */
export const audioTextInbound = (path: '/v1/audio/transcriptions' | '/v1/audio/translations') =>
  multipartInbound((spool) => {
    const prompt = spool.fields.prompt ?? '';
    const streamed = spool.fields.stream === 'true';
    const format = spool.fields.response_format ?? 'json';
    const asJson = format === 'text' && !streamed;
    const fileSeconds = uploadSeconds(spool);
    const surface: Surface = {
      forward(a) {
        const t = openAITarget(a, path, spool.contentType);
        if (!t) return Promise.resolve(cannotServe(a, path));
        const { body, length } = spooledBody(spool, { model: a.model, ...(asJson ? { response_format: 'json' } : {}) });
        t.headers['content-length'] = String(length);
        // Streamed transcripts (gpt-4o-transcribe, stream=true) pass through; transcript.text.done carries the usage.
        if (streamed)
          return forwardPassThrough(
            a,
            t,
            body,
            true,
            (u) => u ?? countedUsage(prompt, '', fileSeconds === undefined ? undefined : minutesOf(fileSeconds)),
          );
        return forwardBuffered(a, t, body, (upstream): Metered => {
          const answer = asJson ? asText(upstream) : upstream;
          return {
            out: answer.text,
            contentType: answer.contentType || (CUE_FORMATS.has(format) ? 'text/plain' : 'application/json'),
            usage: transcriptionUsage(upstream, prompt, fileSeconds),
          };
        });
      },
    };
    return {
      surface,
      bytes: Buffer.byteLength(prompt),
      stream: streamed,
      ...(fileSeconds === undefined ? {} : { units: minutesOf(fileSeconds) }),
    };
  });
