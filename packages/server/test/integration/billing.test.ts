import { describe, expect, it } from 'vitest';
import type { MemoryLedger } from '../../src/accounting/ledger.js';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

const chat = (base: string, key: string, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });

describe.each(dialects)('billing on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  useGateway(dialect, { mock: () => startMockUpstream({ record: false }) }, async (gw) => {
    ({ t, mock, root, base } = gw);
    // A fixed price makes the reservation equal to the charge: $0.001 = 500 quota per call.
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ 'fixed-model': 0.001 }) });
    await addChannel(root, { name: 'fixed', key: 'ok-key', baseUrl: mock.url, models: 'fixed-model,gpt-4o-mini' });
  });

  const userRow = async (id: number) => {
    const r = await t.database.db.kysely
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return { quota: Number(r.quota), used: Number(r.used_quota), requests: Number(r.request_count) };
  };

  it('serves exactly 50 of 500 concurrent requests when the quota covers 50, never going below 0', async () => {
    const u = await createUserClient(t.app, root, 'burst-user');
    await setQuota(root, u.userId!, 50 * 500);
    const { key } = await addToken(t, u.userId!, {});
    const results = await Promise.all(
      Array.from({ length: 500 }, () =>
        chat(base, key, { model: 'fixed-model', messages: [{ role: 'user', content: 'hi' }] }).then((r) => r.status),
      ),
    );
    const served = results.filter((s) => s === 200).length;
    expect(served).toBe(50);
    expect(results.filter((s) => s !== 200).every((s) => s === 403)).toBe(true);
    await drainWriter(t);
    expect(await userRow(u.userId!)).toEqual({ quota: 0, used: 25000, requests: 50 });
    const logs = await t.database.db.kysely
      .selectFrom('logs')
      .select(['quota'])
      .where('user_id', '=', u.userId!)
      .where('type', '=', 2)
      .execute();
    expect(logs).toHaveLength(50);
    expect(logs.reduce((s, l) => s + Number(l.quota), 0)).toBe(25000);
  });

  it('fails over across channels on 500 and 429 and charges only the successful try', async () => {
    await addChannel(root, {
      name: 'broken-500',
      key: 'fail-500',
      baseUrl: mock.url,
      models: 'failover-model',
      priority: 10,
    });
    await addChannel(root, {
      name: 'broken-429',
      key: 'fail-429',
      baseUrl: mock.url,
      models: 'failover-model',
      priority: 5,
    });
    const goodId = await addChannel(root, {
      name: 'good',
      key: 'good-key',
      baseUrl: mock.url,
      models: 'failover-model',
      priority: 0,
    });
    mock.behaviors.set('fail-500', { failStatus: 500 });
    mock.behaviors.set('fail-429', { failStatus: 429 });
    await root.call('PUT', '/api/option/', {
      key: 'ModelPrice',
      value: JSON.stringify({ 'fixed-model': 0.001, 'failover-model': 0.002 }),
    });
    await root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '2' });
    const u = await createUserClient(t.app, root, 'failover-user');
    await setQuota(root, u.userId!, 10_000);
    const { key } = await addToken(t, u.userId!, {});
    const res = await chat(base, key, { model: 'failover-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    await drainWriter(t);
    expect(await userRow(u.userId!)).toEqual({ quota: 9000, used: 1000, requests: 1 });
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', u.userId!)
      .executeTakeFirstOrThrow();
    expect(log.channel_id).toBe(goodId);
    expect(JSON.parse(log.other).admin_info.use_channel).toHaveLength(3);

    // With no retries left the upstream error comes back, fully refunded.
    await root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '0' });
    const failed = await chat(base, key, { model: 'failover-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(failed.status).toBe(500);
    const err = (await failed.json()) as { error: { message: string } };
    expect(err.error.message).toContain('mock failure 500');
    expect(err.error.message).not.toContain('fail-500');
    await drainWriter(t);
    expect(await userRow(u.userId!)).toEqual({ quota: 9000, used: 1000, requests: 1 });
    expect((t.runtime.ctx.relay.ledger as MemoryLedger).peekUser(u.userId!)).toEqual({
      available: 9000,
      reserved: 0,
      unflushed: 0,
    });
  });

  it('bills a stream cut mid-way for what was delivered', async () => {
    mock.behaviors.set('slow-key', { pieces: Array.from({ length: 40 }, (_, i) => ` word${i}`), chunkDelayMs: 50 });
    await addChannel(root, { name: 'slow', key: 'slow-key', baseUrl: mock.url, models: 'gpt-4o', priority: 0 });
    const u = await createUserClient(t.app, root, 'cut-user');
    await setQuota(root, u.userId!, 1_000_000);
    const { key } = await addToken(t, u.userId!, {});
    const abort = new AbortController();
    const res = await chat(
      base,
      key,
      { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'tell me a long story' }] },
      abort.signal,
    );
    const reader = res.body!.getReader();
    let received = '';
    while ((received.match(/word/g) ?? []).length < 5)
      received += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    // Wait until the relay notices the cut and settles.
    let log;
    for (let i = 0; i < 50 && !log; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await drainWriter(t);
      log = await t.database.db.kysely
        .selectFrom('logs')
        .selectAll()
        .where('user_id', '=', u.userId!)
        .executeTakeFirst();
    }
    expect(log).toBeDefined();
    expect(log!.is_stream).toBe(1);
    expect(log!.completion_tokens).toBeGreaterThanOrEqual(5);
    expect(log!.completion_tokens).toBeLessThan(40 * 2);
    expect(JSON.parse(log!.other).usage_reported).toBe(false);
    // gpt-4o: (prompt + completion × 4) × 1.25, rounded.
    const expected = Math.round((log!.prompt_tokens + log!.completion_tokens * 4) * 1.25);
    expect(Number(log!.quota)).toBe(expected);
    expect((await userRow(u.userId!)).quota).toBe(1_000_000 - expected);
  });
});
