import { describe, expect, it } from 'vitest';
import { metrics } from '../../src/lib/metrics.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, lastLogOf, setQuota, userQuota } from '../support/gateway.js';

/**
 * Model fallbacks: a call whose model's channels are all exhausted on a 5xx, 429, timeout or context-length
 * refusal is served by the next model of ModelFallbacks, billed at that model's price and logged with the model
 * asked for and the reason; a caller's own error (a plain 400, a 401) does not move.
 */

const PRIMARY = 'fb-primary';
/** A model whose only channel cannot be reached (status 0: the timeout/unreachable case). */
const DEAD = 'fb-dead';
const BACKUP = 'fb-backup';
const PRIMARY_KEYS = ['fb-primary-a', 'fb-primary-b'];
const BACKUP_KEY = 'fb-backup-key';
const BACKUP_RATIO = 3;
/** The mock's default usage: 12 prompt and 5 completion tokens; completion ratio 1. */
const MOCK_TOKENS = 12 + 5;
const QUOTA = 10_000_000;
/**
 * A balance that binds for the backup model: above its minimum hold ((36 estimated prompt + 1) × 3 = 111), below
 * its full hold ((36 + 20) × 3 = 168), so the cap it is sent is what the rest pays for at its price.
 */
const SMALL_QUOTA = 140;
const OPENAI_CONTEXT =
  "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.";
const ANTHROPIC_CONTEXT = 'prompt is too long: 210000 tokens > 200000 maximum';

/** tollway_model_fallbacks_total of one reason, in this process. */
async function fallbacks(reason: string): Promise<number> {
  const m = metrics.getSingleMetric('tollway_model_fallbacks_total');
  return (await m!.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe.each(dialects)('model fallbacks on %s', (dialect) => {
  const gw = useGateway(dialect, { user: 'fb-user', quota: QUOTA }, async (g) => {
    const options = {
      ModelRatio: JSON.stringify({ [PRIMARY]: 1, [DEAD]: 1, [BACKUP]: BACKUP_RATIO }),
      CompletionRatio: JSON.stringify({ [PRIMARY]: 1, [DEAD]: 1, [BACKUP]: 1 }),
      ModelFallbacks: JSON.stringify({ [PRIMARY]: ['fb-unpriced', BACKUP], [DEAD]: [BACKUP] }),
      RetryTimes: '1',
      ChannelBreakerEnabled: 'false',
    };
    for (const [key, value] of Object.entries(options)) {
      const res = await g.root.call('PUT', '/api/option/', { key, value });
      if (!res.body.success) throw new Error(`${key}: ${res.body.message}`);
    }
    for (const key of PRIMARY_KEYS) await addChannel(g.root, { name: key, key, baseUrl: g.mock.url, models: PRIMARY });
    await addChannel(g.root, { name: 'fb-dead', key: 'fb-dead-key', baseUrl: 'http://127.0.0.1:1', models: DEAD });
    await addChannel(g.root, { name: 'fb-backup', key: BACKUP_KEY, baseUrl: g.mock.url, models: BACKUP });
    // Routable but unpriced: the chain passes over it.
    await addChannel(g.root, { name: 'fb-unpriced', key: BACKUP_KEY, baseUrl: g.mock.url, models: 'fb-unpriced' });
  });

  const failPrimary = (failStatus: number, failMessage?: string) => {
    for (const key of PRIMARY_KEYS) gw.mock.behaviors.set(key, { failStatus, ...(failMessage ? { failMessage } : {}) });
  };
  const call = (model: string, opts: { stream?: boolean; key?: string } = {}) =>
    fetch(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${opts.key ?? gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        max_tokens: 20,
        stream: opts.stream ?? false,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
  const keysSince = (n: number) => gw.mock.requests.slice(n).map((r) => r.key);

  it.each([
    ['5xx', 503, undefined],
    ['429', 429, undefined],
    ['context_length', 400, OPENAI_CONTEXT],
    ['context_length', 400, ANTHROPIC_CONTEXT],
  ] as const)(
    'the model exhausted on %s (%i): the fallback serves, billed at its price',
    async (reason, status, message) => {
      failPrimary(status, message);
      const sent = gw.mock.requests.length;
      const before = await userQuota(gw.t, gw.user.userId!);
      const counted = await fallbacks(reason);
      const res = await call(PRIMARY);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { choices: { message: { content: string } }[] };
      expect(body.choices[0]!.message.content).toBe('Hello from the mock!');
      // Both of the model's channels were tried first on retryable statuses (RetryTimes 1); a context-length
      // refusal is the model's, not the channel's: no other channel of the model is tried.
      const primaryTried = status === 400 ? 1 : 2;
      expect(keysSince(sent)).toHaveLength(primaryTried + 1);
      expect(keysSince(sent).at(-1)).toBe(BACKUP_KEY);
      const charged = MOCK_TOKENS * BACKUP_RATIO;
      expect(before - (await userQuota(gw.t, gw.user.userId!))).toBe(charged);
      const log = await lastLogOf(gw.t, BACKUP);
      expect(Number(log.quota)).toBe(charged);
      expect(JSON.parse(log.other!)).toMatchObject({ fallback_from: PRIMARY, fallback_reason: reason, model_ratio: 3 });
      expect((await fallbacks(reason)) - counted).toBe(1);
    },
  );

  it('an unreachable upstream (timeout) falls back too', async () => {
    const counted = await fallbacks('timeout');
    const res = await call(DEAD);
    expect(res.status).toBe(200);
    const log = await lastLogOf(gw.t, BACKUP);
    expect(JSON.parse(log.other!)).toMatchObject({ fallback_from: DEAD, fallback_reason: 'timeout' });
    expect((await fallbacks('timeout')) - counted).toBe(1);
  });

  it("the caller's own errors do not move: a plain 400 and a 401 are answered as they are", async () => {
    for (const [status, message] of [
      [400, 'messages: unknown field "foo"'],
      [401, 'invalid api key'],
    ] as const) {
      failPrimary(status, message);
      const sent = gw.mock.requests.length;
      const res = await call(PRIMARY);
      expect(res.status).toBe(status);
      expect(keysSince(sent)).not.toContain(BACKUP_KEY);
    }
  });

  it('a streamed call moves the same way: the fallback streams the answer', async () => {
    failPrimary(502);
    const res = await call(PRIMARY, { stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).toContain('data: [DONE]');
    const pieces = text
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map(
        (l) => (JSON.parse(l.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content,
      )
      .join('');
    expect(pieces).toBe('Hello from the mock!');
    const log = await lastLogOf(gw.t, BACKUP);
    expect(log.is_stream).toBe(1);
    expect(JSON.parse(log.other!)).toMatchObject({ fallback_from: PRIMARY, fallback_reason: '5xx' });
  });

  it("a fallback outside the token's models is not taken", async () => {
    failPrimary(503);
    const { key } = await addToken(gw.t, gw.user.userId!, { modelLimits: PRIMARY });
    const sent = gw.mock.requests.length;
    expect((await call(PRIMARY, { key })).status).toBe(503);
    expect(keysSince(sent)).not.toContain(BACKUP_KEY);
  });

  it('with a balance that binds, the fallback is sent only the output its hold pays for at its own price', async () => {
    failPrimary(503);
    await setQuota(gw.root, gw.user.userId!, SMALL_QUOTA);
    try {
      const sent = gw.mock.requests.length;
      const res = await call(PRIMARY);
      expect(res.status).toBe(200);
      const backup = gw.mock.requests.slice(sent).find((r) => r.key === BACKUP_KEY)!;
      const cap = Number(backup.body.max_tokens ?? backup.body.max_completion_tokens);
      // 140 held less the prompt's 36 × 3 leaves 32: 10 output tokens at the backup's price of 3.
      expect(cap).toBe(10);
      expect(await userQuota(gw.t, gw.user.userId!)).toBe(SMALL_QUOTA - MOCK_TOKENS * BACKUP_RATIO);
    } finally {
      await setQuota(gw.root, gw.user.userId!, QUOTA);
    }
  });
});
