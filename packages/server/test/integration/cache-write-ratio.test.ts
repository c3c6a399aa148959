import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, lastLogOf, userQuota } from '../support/gateway.js';

/**
 * new-api's per-model cache-write ratio (CreateCacheRatio) prices the tokens written to the provider's cache; a
 * model without one pays the usual 1.25. The mock answers 12 input, 5 output and 40 cache-write tokens.
 */
const MODEL = 'claude-writes';
const PLAIN = 'claude-writes-default';
const KEY = 'writes-key';

describe.each(dialects.filter((d) => d === 'sqlite'))('cache-write ratios (%s)', (dialect) => {
  const gw = useGateway(dialect, { user: 'writes-user', quota: 10_000_000 }, async (g) => {
    const save = (key: string, value: unknown) =>
      g.root.call('PUT', '/api/option/', { key, value: JSON.stringify(value) });
    expect((await save('ModelRatio', { [MODEL]: 1, [PLAIN]: 1 })).body.success).toBe(true);
    expect((await save('CompletionRatio', { [MODEL]: 1, [PLAIN]: 1 })).body.success).toBe(true);
    expect((await save('CreateCacheRatio', { [MODEL]: 2 })).body.success).toBe(true);
    g.mock.behaviors.set(KEY, { cacheWriteTokens: 40 });
    await addChannel(g.root, { name: 'writes', key: KEY, baseUrl: g.mock.url, type: 14, models: `${MODEL},${PLAIN}` });
  });

  it('bills cache writes at the model’s CreateCacheRatio, else at 1.25', async () => {
    const claude = new Anthropic({ apiKey: gw.key, baseURL: gw.base, maxRetries: 0 });
    const spent = async (model: string) => {
      const before = await userQuota(gw.t, gw.user.userId!);
      await claude.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'cache me' }] });
      const after = await userQuota(gw.t, gw.user.userId!);
      expect(Number((await lastLogOf(gw.t, model)).quota)).toBe(before - after);
      return before - after;
    };
    // (12 + 40 × 2 + 5) × 1 = 97; at 1.25: 12 + 50 + 5 = 67.
    expect(await spent(MODEL)).toBe(97);
    expect(await spent(PLAIN)).toBe(67);
  });
});
