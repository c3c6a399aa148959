import { describe, expect, it } from 'vitest';
import { metrics } from '../../src/lib/metrics.js';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, setQuota } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import {
  chatBody,
  freshWindow,
  RATE_HEADERS,
  rateHeadersOf,
  secondsLeft,
  setTokenLimits,
} from '../support/rate-limits.js';

/** tollway_rate_limit_refusals_total of one level and kind, in this process. */
async function refusals(level: string, kind: 'rpm' | 'tpm'): Promise<number> {
  const m = metrics.getSingleMetric('tollway_rate_limit_refusals_total');
  return (await m!.get()).values.find((v) => v.labels.level === level && v.labels.kind === kind)?.value ?? 0;
}

/** The mock's usage of every answer: 12 prompt + 5 completion tokens. */
const USED = 17;
const MODEL = 'gpt-4o-mini';

describe.each(dialects)('RPM and TPM limits on one node (%s)', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  useGateway(dialect, {}, async (gw) => {
    ({ t, mock, root, base } = gw);
    await addChannel(root, { name: 'main', key: 'main-key', baseUrl: mock.url, models: MODEL });
  });

  const call = (key: string, body: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
  /** A call with its x-ratelimit headers and the window's seconds left before and after it. */
  const timed = async (key: string, body: string) => {
    const before = secondsLeft();
    const res = await call(key, body);
    const after = secondsLeft();
    return {
      res,
      before,
      after,
      headers: rateHeadersOf(res),
      json: (await res.json()) as { error?: { type: string; code: string; message: string } },
    };
  };
  const fundedUser = async (name: string, group?: string) => {
    const u = await createUserClient(t.app, root, name);
    await setQuota(root, u.userId!, 100_000_000);
    if (group) expect((await root.call('PUT', '/api/user/', { id: u.userId, group })).body.success).toBe(true);
    return u;
  };
  const expectReset = (r: Awaited<ReturnType<typeof timed>>, header: string) => {
    const s = Number(/^(\d+)s$/.exec(r.headers[header]!)?.[1]);
    expect(s).toBeGreaterThanOrEqual(r.after);
    expect(s).toBeLessThanOrEqual(r.before);
  };

  it('token RPM: the third call in a minute is a 429 with retry-after; every answer has the exact headers', async () => {
    await freshWindow();
    const u = await fundedUser(`rpm-tok-${dialect}`);
    const { key, id } = await addToken(t, u.userId!);
    await setTokenLimits(t, key, id, 2, 0);
    const { body } = chatBody(MODEL, 10);
    const first = await timed(key, body);
    expect(first.res.status).toBe(200);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit-requests': '2', 'x-ratelimit-remaining-requests': '1' });
    expect(first.headers['x-ratelimit-limit-tokens']).toBeUndefined();
    expect(first.headers['retry-after']).toBeUndefined();
    expectReset(first, 'x-ratelimit-reset-requests');
    const second = await timed(key, body);
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('0');
    const refusedBefore = await refusals('token', 'rpm');
    const third = await timed(key, body);
    expect(await refusals('token', 'rpm')).toBe(refusedBefore + 1);
    expect(third.res.status).toBe(429);
    expect(third.json.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limited',
      message: expect.stringContaining('token limit of 2 requests per minute'),
    });
    expect(third.headers).toMatchObject({ 'x-ratelimit-limit-requests': '2', 'x-ratelimit-remaining-requests': '0' });
    expectReset(third, 'x-ratelimit-reset-requests');
    expect(Number(third.headers['retry-after'])).toBe(
      Number(third.headers['x-ratelimit-reset-requests']!.slice(0, -1)),
    );
  });

  it('token TPM: reserves prompt estimate + max_tokens, settles to the usage, refuses what does not fit', async () => {
    await freshWindow();
    const u = await fundedUser(`tpm-tok-${dialect}`);
    const { key, id } = await addToken(t, u.userId!);
    const { body, estimate } = chatBody(MODEL, 150);
    const limit = estimate + 20;
    await setTokenLimits(t, key, id, 0, limit);
    const first = await timed(key, body);
    expect(first.res.status).toBe(200);
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit-tokens': String(limit),
      'x-ratelimit-remaining-tokens': '20',
    });
    expect(first.headers['x-ratelimit-limit-requests']).toBeUndefined();
    expectReset(first, 'x-ratelimit-reset-tokens');
    // Settled to 17 used: the second reservation fits, leaving limit - 17 - estimate.
    const second = await timed(key, body);
    expect(second.res.status).toBe(200);
    expect(second.headers['x-ratelimit-remaining-tokens']).toBe(String(limit - USED - estimate));
    const third = await timed(key, body);
    expect(third.res.status).toBe(429);
    expect(third.json.error!.message).toContain(`token limit of ${limit} tokens per minute`);
    expect(third.headers).toMatchObject({ 'x-ratelimit-remaining-tokens': String(limit - 2 * USED) });
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(third.after);
    // A smaller call still fits in what is left.
    const small = chatBody(MODEL, 1);
    expect((await call(key, small.body)).status).toBe(small.estimate <= limit - 2 * USED ? 200 : 429);
  });

  it('a failed call gives its reserved tokens back', async () => {
    await freshWindow();
    const u = await fundedUser(`tpm-fail-${dialect}`);
    const { key, id } = await addToken(t, u.userId!);
    await addChannel(root, { name: `failing-${dialect}`, key: 'fail-key', baseUrl: mock.url, models: 'failing-model' });
    mock.behaviors.set('fail-key', { failStatus: 500 });
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({ [MODEL]: 0.075, 'failing-model': 1 }),
    });
    const { body, estimate } = chatBody('failing-model', 50);
    await setTokenLimits(t, key, id, 0, estimate + 5);
    for (let i = 0; i < 3; i++) expect((await call(key, body)).status).toBe(500);
    const ok = await timed(key, chatBody(MODEL, 50).body);
    expect(ok.res.status).toBe(200);
    expect(ok.headers['x-ratelimit-remaining-tokens']).toBe(String(estimate + 5 - chatBody(MODEL, 50).estimate));
  });

  it('user RPM and TPM count every token of the user together; set through the admin API', async () => {
    await freshWindow();
    const u = await fundedUser(`user-lim-${dialect}`);
    const a = await addToken(t, u.userId!);
    const b = await addToken(t, u.userId!);
    const bad = await root.call('PUT', '/api/user/', { id: u.userId, tpm_limit: -1 });
    expect(bad.body).toMatchObject({
      success: false,
      message: expect.stringContaining('tpm_limit must be 0 (no limit) or more'),
    });
    expect(
      (await root.call('PUT', '/api/user/', { id: u.userId, rpm_limit: 2, tpm_limit: 1_000_000 })).body.success,
    ).toBe(true);
    const shown = await root.call<{ rpm_limit: number; tpm_limit: number }>('GET', `/api/user/${u.userId}`);
    expect(shown.body.data).toMatchObject({ rpm_limit: 2, tpm_limit: 1_000_000 });
    const { body, estimate } = chatBody(MODEL, 10);
    const first = await timed(a.key, body);
    expect(first.headers).toMatchObject({
      'x-ratelimit-remaining-requests': '1',
      'x-ratelimit-remaining-tokens': String(1_000_000 - estimate),
    });
    expect((await call(b.key, body)).status).toBe(200);
    const third = await timed(a.key, body);
    expect(third.res.status).toBe(429);
    expect(third.json.error!.message).toContain('user limit of 2 requests per minute');
  });

  it('group limits (GroupRateLimits) are shared by all callers of the group; the tightest level is reported', async () => {
    await freshWindow();
    await root.call('PUT', '/api/option/', {
      key: 'GroupRatio',
      value: JSON.stringify({ default: 1, vip: 1, svip: 1, 'rl-team': 1 }),
    });
    await addChannel(root, {
      name: `team-${dialect}`,
      key: 'team-key',
      baseUrl: mock.url,
      models: MODEL,
      group: 'rl-team',
    });
    const invalid = await root.call('PUT', '/api/option/', {
      key: 'GroupRateLimits',
      value: JSON.stringify({ 'rl-team': { rpm: -3 } }),
    });
    expect(invalid.body.success).toBe(false);
    expect(invalid.body.message).toContain('rpm must be 0 (no limit) or more');
    expect(
      (
        await root.call('PUT', '/api/option/', {
          key: 'GroupRateLimits',
          value: JSON.stringify({ 'rl-team': { rpm: 3 } }),
        })
      ).body.success,
    ).toBe(true);
    const u1 = await fundedUser(`team-a-${dialect}`, 'rl-team');
    const u2 = await fundedUser(`team-b-${dialect}`, 'rl-team');
    const k1 = await addToken(t, u1.userId!);
    const k2 = await addToken(t, u2.userId!);
    await setTokenLimits(t, k1.key, k1.id, 10, 0);
    const { body } = chatBody(MODEL, 10);
    // The group has 2 left, the token 9: the group is the tighter.
    const first = await timed(k1.key, body);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit-requests': '3', 'x-ratelimit-remaining-requests': '2' });
    expect((await call(k2.key, body)).status).toBe(200);
    expect((await call(k2.key, body)).status).toBe(200);
    const refused = await timed(k1.key, body);
    expect(refused.res.status).toBe(429);
    expect(refused.json.error!.message).toContain('group limit of 3 requests per minute');
    await root.call('PUT', '/api/option/', { key: 'GroupRateLimits', value: '{}' });
    expect((await call(k1.key, body)).status).toBe(200);
  });

  it('a channel over its TPM is passed over for another channel; with none left the call is a 429', async () => {
    await freshWindow();
    const { body, estimate } = chatBody('chan-model', 150);
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({ [MODEL]: 0.075, 'failing-model': 1, 'chan-model': 1 }),
    });
    const busy = await addChannel(root, {
      name: `busy-${dialect}`,
      key: 'busy-key',
      baseUrl: mock.url,
      models: 'chan-model',
      priority: 10,
    });
    const spare = await addChannel(root, {
      name: `spare-${dialect}`,
      key: 'spare-key',
      baseUrl: mock.url,
      models: 'chan-model',
      priority: 0,
    });
    const bad = await root.call('PUT', '/api/channel/', { id: busy, setting: JSON.stringify({ tpm_limit: 'lots' }) });
    expect(bad.body).toMatchObject({
      success: false,
      message: expect.stringContaining('setting.tpm_limit must be a number'),
    });
    expect(
      (await root.call('PUT', '/api/channel/', { id: busy, setting: JSON.stringify({ tpm_limit: estimate + 10 }) }))
        .body.success,
    ).toBe(true);
    const u = await fundedUser(`chan-${dialect}`);
    const { key } = await addToken(t, u.userId!);
    const keysUsed = async () => {
      const from = mock.requests.length;
      const res = await call(key, body);
      return { status: res.status, keys: mock.requests.slice(from).map((r) => r.key), res };
    };
    expect(await keysUsed()).toMatchObject({ status: 200, keys: ['busy-key'] });
    // 17 used + another estimate is over the busy channel's TPM: the spare one serves, no error reaches the caller.
    const skippedBefore = await refusals('channel', 'tpm');
    const moved = await keysUsed();
    expect(await refusals('channel', 'tpm')).toBe(skippedBefore + 1);
    expect(moved).toMatchObject({ status: 200, keys: ['spare-key'] });
    // The channel's limit is the operator's, not the caller's: no x-ratelimit headers for it.
    for (const h of RATE_HEADERS) expect(moved.res.headers.get(h)).toBeNull();
    // Counting starts when a limit is set: the spare channel serves one more call, then both are full.
    expect(
      (await root.call('PUT', '/api/channel/', { id: spare, setting: JSON.stringify({ rpm_limit: 1 }) })).body.success,
    ).toBe(true);
    expect(await keysUsed()).toMatchObject({ status: 200, keys: ['spare-key'] });
    const none = await keysUsed();
    expect(none.status).toBe(429);
    expect(none.keys).toEqual([]);
    expect(Number(none.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const h of RATE_HEADERS) expect(none.res.headers.get(h)).toBeNull();
    expect(((await none.res.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
  });

  it('user and group TPM: the reservation of one caller leaves less for the others', async () => {
    await freshWindow();
    const { body, estimate } = chatBody(MODEL, 150);
    // User level: two tokens of one user share estimate + 10 tokens a minute; the first call settles to 17.
    const u = await fundedUser(`user-tpm-${dialect}`);
    expect((await root.call('PUT', '/api/user/', { id: u.userId, tpm_limit: estimate + 10 })).body.success).toBe(true);
    const a = await addToken(t, u.userId!);
    const b = await addToken(t, u.userId!);
    expect(rateHeadersOf(await call(a.key, body))['x-ratelimit-remaining-tokens']).toBe('10');
    const refusedUser = await timed(b.key, body);
    expect(refusedUser.res.status).toBe(429);
    expect(refusedUser.json.error!.message).toContain(`user limit of ${estimate + 10} tokens per minute`);
    // Group level: two users of one group share it.
    await root.call('PUT', '/api/option/', {
      key: 'GroupRatio',
      value: JSON.stringify({ default: 1, vip: 1, svip: 1, 'rl-team': 1, 'tpm-team': 1 }),
    });
    await addChannel(root, {
      name: `tpm-team-${dialect}`,
      key: 'tpm-team-key',
      baseUrl: mock.url,
      models: MODEL,
      group: 'tpm-team',
    });
    await root.call('PUT', '/api/option/', {
      key: 'GroupRateLimits',
      value: JSON.stringify({ 'tpm-team': { tpm: estimate + 10 } }),
    });
    const g1 = await addToken(t, (await fundedUser(`tpm-team-a-${dialect}`, 'tpm-team')).userId!);
    const g2 = await addToken(t, (await fundedUser(`tpm-team-b-${dialect}`, 'tpm-team')).userId!);
    expect((await call(g1.key, body)).status).toBe(200);
    const refusedGroup = await timed(g2.key, body);
    expect(refusedGroup.res.status).toBe(429);
    expect(refusedGroup.json.error!.message).toContain(`group limit of ${estimate + 10} tokens per minute`);
    expect(refusedGroup.headers).toMatchObject({
      'x-ratelimit-limit-tokens': String(estimate + 10),
      'x-ratelimit-remaining-tokens': String(10 + estimate - USED),
    });
    await root.call('PUT', '/api/option/', { key: 'GroupRateLimits', value: '{}' });
  });

  it('a streamed answer carries the headers too, and its usage settles the reservation', async () => {
    await freshWindow();
    const u = await fundedUser(`stream-${dialect}`);
    const { key, id } = await addToken(t, u.userId!);
    await setTokenLimits(t, key, id, 5, 100_000);
    const body = JSON.stringify({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
      messages: [{ role: 'user', content: 'count me' }],
    });
    const estimate = Math.ceil(Buffer.byteLength(body) / 3) + 3 + 50;
    const res = await call(key, body);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(rateHeadersOf(res)).toMatchObject({
      'x-ratelimit-remaining-requests': '4',
      'x-ratelimit-remaining-tokens': String(100_000 - estimate),
    });
    expect(await res.text()).toContain('[DONE]');
    const next = await call(key, chatBody(MODEL, 10).body);
    expect(rateHeadersOf(next)['x-ratelimit-remaining-tokens']).toBe(
      String(100_000 - USED - chatBody(MODEL, 10).estimate),
    );
  });

  it('a token without limits gets no x-ratelimit headers', async () => {
    const u = await fundedUser(`free-${dialect}`);
    const { key } = await addToken(t, u.userId!);
    const res = await call(key, chatBody(MODEL, 10).body);
    expect(res.status).toBe(200);
    expect(rateHeadersOf(res)).toEqual({});
  });
});
