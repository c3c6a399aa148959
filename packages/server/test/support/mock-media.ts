import crypto from 'node:crypto';
import type http from 'node:http';

/** What the mock saw of one multipart upload (parsed by the platform's own FormData parser). */
export interface MediaUpload {
  path: string;
  fields: Record<string, string>;
  /** File fields: name → { filename, size, sha256, seconds (of a WAV file) }. */
  files: Record<string, { filename: string; size: number; sha256: string; seconds?: number }>;
  contentLength: number | undefined;
}

/** Bytes of audio the mock speaks per input character. */
export const SPEECH_BYTES_PER_CHARACTER = 100;

/** The audio bytes the mock speaks for an input: deterministic, SPEECH_BYTES_PER_CHARACTER per character, in 4 KB writes. */
export const mockSpeech = (input: string): Buffer => {
  const out = Buffer.alloc(input.length * SPEECH_BYTES_PER_CHARACTER);
  for (let i = 0; i < out.length; i++) out[i] = (i * 31 + input.length) & 0xff;
  return out;
};

export const MOCK_TRANSCRIPT = 'The quick brown fox jumps over the lazy dog.';
/** Seconds of audio the mock reports for an upload that is not a WAV file (a WAV file: its own duration). */
export const MOCK_AUDIO_SECONDS = 90;

/** A WAV file's duration from its `fmt ` and `data` chunks (as a decoder reads it); undefined for anything else. */
function wavSeconds(bytes: Buffer): number | undefined {
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE')
    return undefined;
  let byteRate = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'fmt ') byteRate = bytes.readUInt32LE(at + 16);
    if (id === 'data') return byteRate ? Math.min(size, bytes.length - at - 8) / byteRate : undefined;
    at += 8 + size + (size % 2);
  }
  return undefined;
}

const json = (res: http.ServerResponse, body: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

async function formOf(req: http.IncomingMessage, raw: Buffer): Promise<MediaUpload> {
  const form = await new Request('http://mock/', {
    method: 'POST',
    headers: { 'content-type': String(req.headers['content-type']) },
    body: new Uint8Array(raw),
  }).formData();
  const fields: Record<string, string> = {};
  const files: MediaUpload['files'] = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields[name] = value;
    else {
      const bytes = Buffer.from(await value.arrayBuffer());
      const seconds = wavSeconds(bytes);
      files[name] = {
        filename: value.name,
        size: bytes.length,
        sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
        ...(seconds === undefined ? {} : { seconds }),
      };
    }
  }
  const length = req.headers['content-length'];
  return {
    path: (req.url ?? '').split('?')[0]!,
    fields,
    files,
    contentLength: length === undefined ? undefined : Number(length),
  };
}

function transcription(upload: MediaUpload): { type: string; body: string } {
  const model = upload.fields.model ?? '';
  const format = upload.fields.response_format ?? 'json';
  const seconds = upload.files.file?.seconds ?? MOCK_AUDIO_SECONDS;
  if (format === 'text') return { type: 'text/plain; charset=utf-8', body: MOCK_TRANSCRIPT };
  if (format === 'srt' || format === 'vtt') {
    // One cue over the whole audio, in each format's timestamp notation.
    const at = (t: number, sep: string) =>
      `${[Math.floor(t / 3600), Math.floor(t / 60) % 60, Math.floor(t) % 60].map((n) => String(n).padStart(2, '0')).join(':')}${sep}${String(Math.round((t % 1) * 1000)).padStart(3, '0')}`;
    if (format === 'srt')
      return {
        type: 'text/plain; charset=utf-8',
        body: `1\n${at(0, ',')} --> ${at(seconds, ',')}\n${MOCK_TRANSCRIPT}\n\n`,
      };
    return {
      type: 'text/vtt; charset=utf-8',
      body: `WEBVTT\n\n${at(0, '.')} --> ${at(seconds, '.')}\n${MOCK_TRANSCRIPT}\n\n`,
    };
  }
  if (format === 'verbose_json') {
    return {
      type: 'application/json',
      body: JSON.stringify({
        task: upload.path.endsWith('translations') ? 'translate' : 'transcribe',
        language: 'english',
        duration: seconds,
        text: MOCK_TRANSCRIPT,
        segments: [],
      }),
    };
  }
  // gpt-4o-transcribe reports tokens; whisper-1 (json) reports its duration; translations report nothing.
  const usage = model.startsWith('gpt-4o')
    ? {
        type: 'tokens',
        input_tokens: 40,
        output_tokens: 11,
        total_tokens: 51,
        input_token_details: { audio_tokens: 40, text_tokens: 0 },
      }
    : upload.path.endsWith('transcriptions')
      ? { type: 'duration', seconds }
      : undefined;
  return { type: 'application/json', body: JSON.stringify({ text: MOCK_TRANSCRIPT, ...(usage ? { usage } : {}) }) };
}

/**
 * The media and retrieval endpoints of the mock upstream, written from the public API references: OpenAI
 * images (generations, edits), audio (speech, transcriptions, translations) and Gemini
 * embedContent / batchEmbedContents. Returns false for any other path.
 */
export async function answerMedia(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: Buffer,
  uploads: MediaUpload[],
): Promise<boolean> {
  const path = (req.url ?? '').split('?')[0]!;
  const isMultipart = String(req.headers['content-type'] ?? '').startsWith('multipart/form-data');
  if (isMultipart && /\/(images\/edits|audio\/transcriptions|audio\/translations)$/.test(path)) {
    const upload = await formOf(req, raw);
    uploads.push(upload);
    if (path.endsWith('/images/edits')) {
      const n = Number(upload.fields.n ?? 1);
      json(res, {
        created: 1700000000,
        data: Array.from({ length: n }, (_, i) => ({ b64_json: Buffer.from(`edited-${i}`).toString('base64') })),
      });
    } else if (upload.fields.stream === 'true') {
      // Streamed transcription events (gpt-4o-transcribe): text deltas, then the whole text with the usage.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const delta of MOCK_TRANSCRIPT.split(' '))
        res.write(`data: ${JSON.stringify({ type: 'transcript.text.delta', delta: `${delta} ` })}\n\n`);
      const usage = { type: 'tokens', input_tokens: 30, output_tokens: 12, total_tokens: 42 };
      res.end(`data: ${JSON.stringify({ type: 'transcript.text.done', text: MOCK_TRANSCRIPT, usage })}\n\n`);
    } else {
      const t = transcription(upload);
      res.writeHead(200, { 'content-type': t.type }).end(t.body);
    }
    return true;
  }
  const body = raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
  if (path.endsWith('/images/generations')) {
    const n = Number(body.n ?? 1);
    const model = String(body.model);
    const usage = model.startsWith('gpt-image')
      ? {
          usage: {
            total_tokens: 4200,
            input_tokens: 50,
            output_tokens: 4150,
            input_tokens_details: { text_tokens: 50, image_tokens: 0 },
          },
        }
      : {};
    json(res, {
      created: 1700000000,
      data: Array.from({ length: n }, (_, i) => ({
        url: `https://images.example/${model}/${i}.png`,
        revised_prompt: String(body.prompt),
      })),
      ...usage,
    });
    return true;
  }
  if (path.endsWith('/audio/speech')) {
    const audio = mockSpeech(String(body.input ?? ''));
    res.writeHead(200, { 'content-type': 'audio/mpeg' });
    for (let at = 0; at < audio.length; at += 4096) res.write(audio.subarray(at, at + 4096));
    res.end();
    return true;
  }
  const embed = /\/models\/([^:]+):(embedContent|batchEmbedContents)$/.exec(path);
  if (embed) {
    const values = (i: number) => [0.5, 0.25, i];
    if (embed[2] === 'embedContent') json(res, { embedding: { values: values(0) } });
    else json(res, { embeddings: (body.requests as unknown[]).map((_, i) => ({ values: values(i) })) });
    return true;
  }
  return false;
}
