import fc from 'fast-check';
import { computeQuota, type Price } from '@tollway/shared';
import { describe, it } from 'vitest';
import { wavFile } from '../support/audio-files.js';
import { dialects } from '../support/databases.js';
import { addChannel } from '../support/gateway.js';
import { SPEECH_BYTES_PER_CHARACTER } from '../support/mock-media.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { assertMoneyInvariant, fundedKey, settledMoney, useMoneyGateway } from '../support/money-property.js';

type FixedPrice = Extract<Price, { mode: 'price' }>;
const WHISPER: FixedPrice = { mode: 'price', modelPrice: 0.006, groupRatio: 1 };
const TTS: FixedPrice = { mode: 'price', modelPrice: 0.015, groupRatio: 1 };
const RUNS = Number(process.env.MONEY_PROPERTY_RUNS ?? 12);
const FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;

/** A transcription of a WAV file of `seconds` in `format`; worth its minutes at whisper-1's price when answered. */
async function transcription(base: string, key: string, seconds: number, format: string): Promise<number> {
  const form = new FormData();
  form.set('model', 'whisper-1');
  form.set('file', new Blob([new Uint8Array(wavFile(seconds))]), 'talk.wav');
  form.set('response_format', format);
  const res = await fetch(`${base}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  await res.text();
  return res.status === 200
    ? computeQuota(
        { ...WHISPER, modelPrice: (WHISPER.modelPrice * seconds) / 60 },
        { promptTokens: 0, completionTokens: 0 },
        500_000,
      )
    : 0;
}

/**
 * Speech of `input`, the client hanging up after `cutAt` bytes of audio (if given); worth the characters the
 * audio received covers (the mock speaks 100 bytes a character) at tts-1's price per 1,000.
 */
async function speech(base: string, key: string, input: string, cutAt: number | undefined): Promise<number> {
  const abort = new AbortController();
  const res = await fetch(`${base}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input }),
    signal: abort.signal,
  });
  if (res.status !== 200) {
    await res.text();
    return 0;
  }
  let bytes = 0;
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.length;
      if (cutAt !== undefined && bytes >= cutAt) {
        abort.abort();
        break;
      }
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  const characters = Math.min(input.length, Math.ceil(bytes / SPEECH_BYTES_PER_CHARACTER));
  return characters
    ? computeQuota(
        { ...TTS, modelPrice: (TTS.modelPrice * characters) / 1000 },
        { promptTokens: 0, completionTokens: 0 },
        500_000,
      )
    : 0;
}

const call = fc.oneof(
  fc.record({
    kind: fc.constant('transcription' as const),
    seconds: fc.integer({ min: 1, max: 1800 }),
    format: fc.constantFrom(...FORMATS),
  }),
  fc.record({
    kind: fc.constant('speech' as const),
    characters: fc.integer({ min: 1, max: 3000 }),
    cutAt: fc.option(fc.integer({ min: 1, max: 300_000 }), { nil: undefined }),
  }),
);

/** Issue 31: Σ value delivered ≤ Σ charged ≤ starting balance for audio in (transcriptions) and out (speech). */
describe.each(dialects.filter((d) => d !== 'mysql'))('audio money property on %s', (dialect) => {
  const gw = useMoneyGateway<MockUpstream>(
    dialect,
    { redis: dialect === 'postgres', mock: startMockUpstream },
    async (g) => {
      await addChannel(g.root, {
        name: 'audio-property',
        key: 'audio-key',
        baseUrl: g.mock.url,
        models: 'whisper-1,tts-1',
      });
      await g.root.call('PUT', '/api/option/', {
        key: 'ModelPrice',
        value: JSON.stringify({ 'whisper-1': 0.006, 'tts-1': 0.015 }),
      });
    },
  );

  it('never delivers more than it charges, never charges more than the balance', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 100_000 }),
        fc.array(call, { minLength: 1, maxLength: 4 }),
        async (start, calls) => {
          const { userId, key } = await fundedKey(gw, start);
          const values = await Promise.all(
            calls.map((c) =>
              c.kind === 'transcription'
                ? transcription(gw.base, key, c.seconds, c.format)
                : speech(gw.base, key, 'a'.repeat(c.characters), c.cutAt),
            ),
          );
          const money = await settledMoney(gw, userId);
          assertMoneyInvariant(
            start,
            values.reduce((n, v) => n + v, 0),
            money,
          );
        },
      ),
      { numRuns: RUNS },
    );
  }, 240_000);
});
