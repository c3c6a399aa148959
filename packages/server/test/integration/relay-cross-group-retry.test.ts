import OpenAI from 'openai';
import { ChannelType } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, lastLogOf, setQuota, userQuota } from '../support/gateway.js';
import { startMockMidjourney, type MockMidjourney } from '../support/mock-midjourney.js';

/**
 * new-api's token switch cross_group_retry: a token of the `auto` group is served in the first of the AutoGroups
 * (those its user may use) with a channel for the model; with the switch on, a call whose group's channels all
 * failed goes on in the next auto group and is billed at that group's ratio; with it off, the call fails there.
 * The field round-trips through the token API on every database.
 */

const MODEL = 'cg-model';
const FAIL_KEY = 'cg-fail-key';
const OK_KEY = 'cg-ok-key';
const VIP_RATIO = 2;
/** The mock's default usage: 12 prompt and 5 completion tokens; ratio 1, completion ratio 1. */
const MOCK_TOKENS = 12 + 5;
const QUOTA = 10_000_000;
/** A balance that binds: the output cap sent upstream is what it pays for. */
const SMALL_QUOTA = 2_000;
/** A drawing's price, $0.05: 25,000 quota at ratio 1. */
const IMAGINE_PRICE = 0.05;
const IMAGINE_QUOTA = 25_000;

interface TokenView {
  id: number;
  key: string;
  group: string;
  cross_group_retry: boolean;
}

describe.each(dialects)('cross_group_retry on %s', (dialect) => {
  let mj: MockMidjourney | undefined;
  afterAll(async () => mj?.close());
  const gw = useGateway(dialect, { user: 'cg-user', quota: QUOTA, token: false }, async (g) => {
    g.mock.behaviors.set(FAIL_KEY, { failStatus: 503 });
    const options = {
      GroupRatio: JSON.stringify({ default: 1, vip: VIP_RATIO, svip: 3 }),
      UserUsableGroups: JSON.stringify({ default: 'default', vip: 'vip', auto: 'auto' }),
      AutoGroups: JSON.stringify(['default', 'svip', 'vip']),
      ModelRatio: JSON.stringify({ [MODEL]: 1 }),
      CompletionRatio: JSON.stringify({ [MODEL]: 1 }),
      ModelPrice: JSON.stringify({ mj_imagine: IMAGINE_PRICE }),
    };
    for (const [key, value] of Object.entries(options)) {
      const res = await g.root.call('PUT', '/api/option/', { key, value });
      if (!res.body.success) throw new Error(`${key}: ${res.body.message}`);
    }
    // default: a failing channel; svip (not usable by this user): a working one never chosen; vip: a working one.
    await addChannel(g.root, { name: 'cg-default', key: FAIL_KEY, baseUrl: g.mock.url, models: MODEL });
    await addChannel(g.root, { name: 'cg-svip', key: OK_KEY, baseUrl: g.mock.url, models: MODEL, group: 'svip' });
    await addChannel(g.root, { name: 'cg-vip', key: OK_KEY, baseUrl: g.mock.url, models: MODEL, group: 'vip' });
    // Drawing: a Midjourney channel in vip only.
    mj = await startMockMidjourney();
    await addChannel(g.root, {
      name: 'cg-mj',
      type: ChannelType.Midjourney,
      key: mj.secret,
      baseUrl: mj.url,
      models: 'mj_imagine',
      group: 'vip',
    });
  });

  const user = (): Client => gw.user;
  const newToken = async (body: Record<string, unknown>): Promise<TokenView> => {
    const res = await user().call<TokenView[] | TokenView>('POST', '/api/token/', { name: 'cg', ...body });
    expect(res.body.success, res.body.message).toBe(true);
    const d = res.body.data!;
    return Array.isArray(d) ? d[0]! : d;
  };
  const view = async (id: number): Promise<TokenView> =>
    (await user().call<TokenView>('GET', `/api/token/${id}`)).body.data!;
  const ask = (key: string) =>
    new OpenAI({ apiKey: key, baseURL: `${gw.base}/v1`, maxRetries: 0 }).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
    });

  it('the field is stored: created, read, updated and stored as 0/1', async () => {
    const tok = await newToken({ group: 'auto', cross_group_retry: true });
    expect(tok.cross_group_retry).toBe(true);
    expect(await view(tok.id)).toMatchObject({ group: 'auto', cross_group_retry: true });
    const put = await user().call('PUT', '/api/token/', { id: tok.id, cross_group_retry: false });
    expect(put.body.success, put.body.message).toBe(true);
    expect((await view(tok.id)).cross_group_retry).toBe(false);
    const row = await gw.t.database.db.kysely
      .selectFrom('tokens')
      .select('cross_group_retry')
      .where('id', '=', tok.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.cross_group_retry)).toBe(0);
    expect((await newToken({})).cross_group_retry).toBe(false);
  });

  it('off: the call stays in its auto group and fails there, charging nothing', async () => {
    const tok = await newToken({ group: 'auto', cross_group_retry: false });
    const sent = gw.mock.requests.length;
    const before = await userQuota(gw.t, gw.user.userId!);
    await expect(ask(tok.key)).rejects.toMatchObject({ status: 503 });
    expect(gw.mock.requests.slice(sent).map((r) => r.key)).toEqual([FAIL_KEY]);
    expect(await userQuota(gw.t, gw.user.userId!)).toBe(before);
  });

  it("on: the auto group's failed channels hand the call to the next usable auto group, billed at its ratio", async () => {
    const tok = await newToken({ group: 'auto', cross_group_retry: true });
    const sent = gw.mock.requests.length;
    const before = await userQuota(gw.t, gw.user.userId!);
    const answer = await ask(tok.key);
    expect(answer.choices[0]!.message.content).toBe('Hello from the mock!');
    // Tried in default (failed), then vip; svip is not the user's to use.
    expect(gw.mock.requests.slice(sent).map((r) => r.key)).toEqual([FAIL_KEY, OK_KEY]);
    const charged = MOCK_TOKENS * VIP_RATIO;
    expect(before - (await userQuota(gw.t, gw.user.userId!))).toBe(charged);
    const log = await lastLogOf(gw.t, MODEL);
    expect({ group: log.group, quota: Number(log.quota), token: log.token_id }).toEqual({
      group: 'vip',
      quota: charged,
      token: tok.id,
    });
  });

  it('on, with a balance that binds: the hold and the cap sent upstream are priced at the dearest group it may move to', async () => {
    const tok = await newToken({ group: 'auto', cross_group_retry: true });
    await setQuota(gw.root, gw.user.userId!, SMALL_QUOTA);
    try {
      const sent = gw.mock.requests.length;
      await ask(tok.key);
      const caps = gw.mock.requests.slice(sent).map((r) => Number(r.body.max_tokens ?? r.body.max_completion_tokens));
      expect(caps).toHaveLength(2);
      // Served in vip (ratio 2): the output it was allowed, billed at vip's ratio, fits in the balance.
      for (const cap of caps) {
        expect(cap).toBeGreaterThan(0);
        expect(cap * VIP_RATIO).toBeLessThanOrEqual(SMALL_QUOTA);
      }
      expect(await userQuota(gw.t, gw.user.userId!)).toBe(SMALL_QUOTA - MOCK_TOKENS * VIP_RATIO);
    } finally {
      await setQuota(gw.root, gw.user.userId!, QUOTA);
    }
  });

  it('a task of an auto token runs in the first auto group serving its model, billed at its ratio', async () => {
    const tok = await newToken({ group: 'auto' });
    const before = await userQuota(gw.t, gw.user.userId!);
    const res = await fetch(`${gw.base}/mj/submit/imagine`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a cat' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ code: 1 });
    expect(mj!.requests.filter((r) => r.path === '/mj/submit/imagine')).toHaveLength(1);
    await drainWriter(gw.t);
    expect(before - (await userQuota(gw.t, gw.user.userId!))).toBe(IMAGINE_QUOTA * VIP_RATIO);
    const log = await lastLogOf(gw.t, 'mj_imagine');
    expect({ group: log.group, quota: Number(log.quota) }).toEqual({ group: 'vip', quota: IMAGINE_QUOTA * VIP_RATIO });
  });
});
