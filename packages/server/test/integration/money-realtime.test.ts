import type { Price } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { addChannel } from '../support/gateway.js';
import { startMockRealtime, type MockRealtime } from '../support/mock-realtime.js';
import { assertMoneyInvariant, fundedKey, settledMoney, useMoneyGateway } from '../support/money-property.js';
import { realtimeClient, receivedValue, PCM16_BYTES_PER_TOKEN } from '../support/realtime-client.js';

const MODEL = 'rt-money';
const TRANSCRIBER = 'gpt-4o-transcribe';
/** 2.5 × 4: ten quota per output token. */
const PRICE: Price = {
  mode: 'ratio',
  modelRatio: 2.5,
  completionRatio: 4,
  cacheRatio: 1,
  cacheCreationRatio: 1,
  groupRatio: 1,
};
const TRANSCRIBE_PRICE: Price = {
  mode: 'ratio',
  modelRatio: 1.25,
  completionRatio: 4,
  cacheRatio: 1,
  cacheCreationRatio: 1,
  groupRatio: 1,
};
/** Half a second of PCM16 per delta: ten output tokens, 100 quota. */
const DELTA_BYTES = 10 * PCM16_BYTES_PER_TOKEN;

/** Issue 31 hole 2: realtime bills what it delivers, as it delivers it, and never past the balance held. */
describe.each(dialects.filter((d) => d !== 'mysql'))('realtime money on %s', (dialect) => {
  const gw = useMoneyGateway<MockRealtime>(
    dialect,
    { redis: dialect === 'postgres', mock: startMockRealtime },
    async (g) => {
      await addChannel(g.root, { name: 'rt-money', key: 'rt-key', baseUrl: g.mock.url, models: MODEL });
      await g.root.call('PUT', '/api/option/', {
        key: 'ModelRatio',
        value: JSON.stringify({ [MODEL]: 2.5, [TRANSCRIBER]: 1.25 }),
      });
      await g.root.call('PUT', '/api/option/', {
        key: 'CompletionRatio',
        value: JSON.stringify({ [MODEL]: 4, [TRANSCRIBER]: 4 }),
      });
    },
  );
  const open = async (quota: number) => {
    const { userId, key } = await fundedKey(gw, quota);
    const c = realtimeClient(`${gw.base.replace('http', 'ws')}/v1/realtime?model=${MODEL}`, key);
    await c.until((e) => e.some((x) => x.type === 'session.created'));
    return { userId, c, upstream: gw.mock.connections.at(-1)! };
  };

  it('a session closed after 19 of 20 audio deltas is charged for the 19 delivered', async () => {
    const { userId, c, upstream } = await open(1_000_000);
    c.send({ type: 'test.respond', audio: 20, audioBytes: DELTA_BYTES, holdAfter: 19, inputTokens: 400 });
    await c.until(() => c.count('response.audio.delta') === 19);
    c.ws.close();
    await upstream.closed;
    const money = await settledMoney(gw, userId);
    // 19 deltas × 10 tokens × 10 quota.
    expect(money.charged).toBe(1900);
    expect(receivedValue(c.events, PRICE)).toBe(1900);
    assertMoneyInvariant(1_000_000, 1900, money);
  });

  it('five parallel sessions cut mid-response are each charged for what they received', async () => {
    const sessions = await Promise.all(Array.from({ length: 5 }, () => open(1_000_000)));
    await Promise.all(
      sessions.map(async ({ c, upstream }, i) => {
        c.send({ type: 'test.respond', audio: 20, audioBytes: DELTA_BYTES, holdAfter: 10 + i });
        await c.until(() => c.count('response.audio.delta') === 10 + i);
        c.ws.close();
        await upstream.closed;
      }),
    );
    for (const [i, { userId, c }] of sessions.entries()) {
      const money = await settledMoney(gw, userId);
      expect(money.charged).toBe((10 + i) * 100);
      assertMoneyInvariant(1_000_000, receivedValue(c.events, PRICE), money);
    }
  });

  it('a response.done without usage is billed for its deltas; one with usage at least that', async () => {
    const { userId, c, upstream } = await open(1_000_000);
    c.send({ type: 'test.respond', audio: 3, audioBytes: DELTA_BYTES, text: [' one', ' two'], usage: false });
    await c.until(() => c.count('response.done') === 1);
    c.send({ type: 'test.respond', audio: 2, audioBytes: DELTA_BYTES, inputTokens: 100 });
    await c.until(() => c.count('response.done') === 2);
    c.ws.close();
    await upstream.closed;
    const money = await settledMoney(gw, userId);
    // (30 + 2) × 10 without usage; (100 + 20 × 4) × 2.5 with it.
    expect(money.charged).toBe(320 + 450);
    assertMoneyInvariant(1_000_000, receivedValue(c.events, PRICE), money);
  });

  it('input audio transcriptions are billed at the transcription model, also when cut after their deltas', async () => {
    const { userId, c, upstream } = await open(1_000_000);
    c.send({ type: 'session.update', session: { input_audio_transcription: { model: TRANSCRIBER } } });
    await c.until(() => c.count('session.updated') === 1);
    c.send({
      type: 'test.transcribe',
      itemId: 'item_1',
      usage: { type: 'tokens', input_tokens: 200, output_tokens: 30, total_tokens: 230 },
    });
    await c.until(() => c.count('conversation.item.input_audio_transcription.completed') === 1);
    c.send({ type: 'test.transcribe', itemId: 'item_2', deltas: ['Hello', ' world'], hold: true });
    await c.until(() => c.count('conversation.item.input_audio_transcription.delta') === 2);
    c.ws.close();
    await upstream.closed;
    const money = await settledMoney(gw, userId);
    const logs = await gw.t.database.db.kysely
      .selectFrom('logs')
      .select(['model_name', 'quota'])
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .orderBy('id')
      .execute();
    // (200 + 30 × 4) × 1.25, then the two delivered tokens × 4 × 1.25.
    expect(logs.map((l) => [l.model_name, Number(l.quota)])).toEqual([
      [TRANSCRIBER, 400],
      [TRANSCRIBER, 10],
    ]);
    assertMoneyInvariant(1_000_000, receivedValue(c.events, PRICE, TRANSCRIBE_PRICE), money);
  });

  it('a session whose balance cannot hold the response ends when its hold is spent; nothing is delivered past the charge', async () => {
    const start = 5_000;
    const { userId, c } = await open(start);
    // 100 deltas worth 10,000 against a balance of 5,000.
    c.send({ type: 'test.respond', audio: 100, audioBytes: DELTA_BYTES });
    const code = await c.closed;
    const error = c.events.find((e) => e.type === 'error') as { error?: { type?: string } } | undefined;
    expect({ code, error: error?.error?.type }).toEqual({ code: 1008, error: 'insufficient_quota' });
    const delivered = receivedValue(c.events, PRICE);
    expect(c.count('response.audio.delta')).toBeLessThan(100);
    const money = await settledMoney(gw, userId);
    assertMoneyInvariant(start, delivered, money);
    expect(money.charged).toBe(delivered);
    expect(money.shortfall).toBe(0);
  });
});
