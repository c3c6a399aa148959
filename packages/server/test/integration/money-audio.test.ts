import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { addChannel } from '../support/gateway.js';
import { MOCK_AUDIO_SECONDS } from '../support/mock-media.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { fundedKey, settledMoney, useMoneyGateway } from '../support/money-property.js';
import { wavFile } from '../support/audio-files.js';

/** whisper-1's price: $0.006 a minute; 500,000 quota a dollar: 3,000 quota a minute. */
const PER_MINUTE = 3000;
const TWO_HOURS = 7200;

/** A transcription or translation of `file` in `format`; its status and body. */
async function transcribe(
  base: string,
  key: string,
  path: 'transcriptions' | 'translations',
  file: { bytes: Buffer; name: string },
  format?: string,
) {
  const form = new FormData();
  form.set('model', 'whisper-1');
  form.set('file', new Blob([new Uint8Array(file.bytes)]), file.name);
  if (format) form.set('response_format', format);
  const res = await fetch(`${base}/v1/audio/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

/** Issue 31 hole 8: transcriptions are billed by the audio's duration whatever format the answer is in. */
describe.each(dialects.filter((d) => d !== 'mysql'))('audio money on %s', (dialect) => {
  const gw = useMoneyGateway<MockUpstream>(
    dialect,
    { redis: dialect === 'postgres', mock: startMockUpstream },
    async (g) => {
      await addChannel(g.root, {
        name: 'audio-money',
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
  const chargeOf = async (userId: number) => (await settledMoney(gw, userId)).charged;

  it('a two-hour file is billed 120 minutes in every response format, text included', async () => {
    const wav = { bytes: wavFile(TWO_HOURS), name: 'meeting.wav' };
    for (const format of [undefined, 'text', 'srt', 'vtt', 'verbose_json']) {
      const { userId, key } = await fundedKey(gw, 1_000_000);
      const res = await transcribe(gw.base, key, 'transcriptions', wav, format);
      expect(res.status, res.body).toBe(200);
      expect({ format, charged: await chargeOf(userId) }).toEqual({ format, charged: 120 * PER_MINUTE });
    }
  });

  it('a text answer is the transcript as text/plain, whatever the upstream was asked for', async () => {
    const { key } = await fundedKey(gw, 1_000_000);
    const res = await transcribe(gw.base, key, 'transcriptions', { bytes: wavFile(5), name: 'short.wav' }, 'text');
    expect({ status: res.status, type: res.type.split(';')[0], text: res.body.trim() }).toEqual({
      status: 200,
      type: 'text/plain',
      text: 'The quick brown fox jumps over the lazy dog.',
    });
  });

  it('a file whose duration is unknown to the gateway is billed what the upstream reports, also for text', async () => {
    const opaque = { bytes: Buffer.alloc(50_000, 3), name: 'talk.m4a' };
    for (const format of ['json', 'text']) {
      const { userId, key } = await fundedKey(gw, 1_000_000);
      expect((await transcribe(gw.base, key, 'transcriptions', opaque, format)).status).toBe(200);
      expect({ format, charged: await chargeOf(userId) }).toEqual({
        format,
        charged: (MOCK_AUDIO_SECONDS / 60) * PER_MINUTE,
      });
    }
  });

  it('a translation whose answer reports no duration is billed by the duration of the uploaded file', async () => {
    for (const format of ['json', 'text']) {
      const { userId, key } = await fundedKey(gw, 1_000_000);
      expect(
        (await transcribe(gw.base, key, 'translations', { bytes: wavFile(TWO_HOURS), name: 'de.wav' }, format)).status,
      ).toBe(200);
      expect({ format, charged: await chargeOf(userId) }).toEqual({ format, charged: 120 * PER_MINUTE });
    }
  });
});
