import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DurableWriter, type WriteRecord } from '../../src/accounting/writer.js';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { logRow } from '../support/log-row.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { expectRefused } from '../support/refusal.js';

interface Row {
  model_name: string;
  created_at: number;
  count: number;
  token_used: number;
  quota: number;
}
type Agg = { username: string; count: number; token_used: number; quota: number };

const HOUR = 3600;
const byKey = (m: Map<string, Agg>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));
const totals = (rows: Row[]) =>
  rows.reduce(
    (s, r) => ({ count: s.count + r.count, token_used: s.token_used + r.token_used, quota: s.quota + r.quota }),
    { count: 0, token_used: 0, quota: 0 },
  );

describe.each(dialects)('data dashboard aggregates on %s', (dialect) => {
  let t: TestApp,
    mock: MockUpstream,
    root: Client,
    base: string,
    alice: Client,
    bob: Client,
    aliceSdk: OpenAI,
    bobSdk: OpenAI;
  useGateway(dialect, { mock: () => startMockUpstream({ record: false }) }, async (gw) => {
    ({ t, mock, root, base } = gw);
    // $0.001 (500 quota) per dash-a call; dash-b is billed by tokens through its model ratio.
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ 'dash-a': 0.001 }) });
    await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'dash-b': 2 }) });
    await addChannel(root, { name: 'dash-a', key: 'dash-a-key', baseUrl: mock.url, models: 'dash-a' });
    await addChannel(root, { name: 'dash-b', key: 'dash-b-key', baseUrl: mock.url, models: 'dash-b' });
    mock.behaviors.set('dash-a-key', { promptTokens: 30, completionTokens: 7 });
    mock.behaviors.set('dash-b-key', { promptTokens: 100, completionTokens: 40 });
    alice = await createUserClient(t.app, root, 'alice');
    bob = await createUserClient(t.app, root, 'bob');
    for (const u of [alice, bob]) await setQuota(root, u.userId!, 10_000_000);
    aliceSdk = new OpenAI({ apiKey: (await addToken(t, alice.userId!)).key, baseURL: `${base}/v1`, maxRetries: 0 });
    bobSdk = new OpenAI({ apiKey: (await addToken(t, bob.userId!)).key, baseURL: `${base}/v1`, maxRetries: 0 });
  });

  const k = () => t.database.db.kysely;
  const ask = (sdk: OpenAI, model: string) =>
    sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  const askStream = async (sdk: OpenAI, model: string) => {
    const s = await sdk.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _ of s);
  };
  const aggregates = async () => {
    const rows = await k().selectFrom('quota_data').selectAll().execute();
    return new Map(
      rows.map((r) => [
        `${r.user_id}|${r.model_name}|${Number(r.created_at)}`,
        { username: r.username, count: Number(r.count), token_used: Number(r.token_used), quota: Number(r.quota) },
      ]),
    );
  };
  /** The consume logs summed per user, model and hour: what quota_data must hold. */
  const fromLogs = async () => {
    const logs = await k().selectFrom('logs').selectAll().where('type', '=', 2).execute();
    const out = new Map<string, Agg>();
    for (const l of logs) {
      const key = `${l.user_id}|${l.model_name}|${Number(l.created_at) - (Number(l.created_at) % HOUR)}`;
      const s = out.get(key) ?? { username: l.username, count: 0, token_used: 0, quota: 0 };
      s.count += 1;
      s.token_used += l.prompt_tokens + l.completion_tokens;
      s.quota += Number(l.quota);
      out.set(key, s);
    }
    return out;
  };

  it('adds every relayed call to its user, model and hour, across several writer batches', async () => {
    await Promise.all([
      ask(aliceSdk, 'dash-a'),
      ask(aliceSdk, 'dash-a'),
      askStream(aliceSdk, 'dash-b'),
      ask(bobSdk, 'dash-a'),
    ]);
    await drainWriter(t);
    // A second batch lands on the same keys: the upsert adds to the rows the first one created.
    await Promise.all([ask(aliceSdk, 'dash-a'), ask(aliceSdk, 'dash-b'), ask(bobSdk, 'dash-a')]);
    await drainWriter(t);

    const agg = await aggregates();
    expect(byKey(agg)).toEqual(byKey(await fromLogs()));
    const sum = (uid: number, model: string) =>
      [...agg]
        .filter(([key]) => key.startsWith(`${uid}|${model}|`))
        .reduce(
          (s, [, a]) => ({
            count: s.count + a.count,
            token_used: s.token_used + a.token_used,
            quota: s.quota + a.quota,
          }),
          { count: 0, token_used: 0, quota: 0 },
        );
    expect(sum(alice.userId!, 'dash-a')).toEqual({ count: 3, token_used: 3 * 37, quota: 3 * 500 });
    expect(sum(bob.userId!, 'dash-a')).toEqual({ count: 2, token_used: 2 * 37, quota: 2 * 500 });
    const b = sum(alice.userId!, 'dash-b');
    expect({ count: b.count, token_used: b.token_used }).toEqual({ count: 2, token_used: 2 * 140 });
    expect(b.quota).toBeGreaterThan(0);
    expect([...agg.values()].every((a) => a.username === 'alice' || a.username === 'bob')).toBe(true);
  });

  it("/api/data/self returns only the caller's hours; /api/data/ is for administrators, all users or one", async () => {
    const own = await alice.call<Row[]>('GET', '/api/data/self');
    expect(own.body.success).toBe(true);
    expect(totals(own.body.data!)).toMatchObject({ count: 5 });
    expect(new Set(own.body.data!.map((r) => r.model_name))).toEqual(new Set(['dash-a', 'dash-b']));
    const bobs = await bob.call<Row[]>('GET', '/api/data/self');
    expect(totals(bobs.body.data!)).toEqual({ count: 2, token_used: 74, quota: 1000 });
    expect(bobs.body.data!.every((r) => r.model_name === 'dash-a' && r.created_at % HOUR === 0)).toBe(true);

    const denied = await alice.call('GET', '/api/data/');
    expect(denied.status).toBe(403);
    expect(denied.body.success).toBe(false);

    const all = await root.call<Row[]>('GET', '/api/data/');
    expect(all.body.success).toBe(true);
    expect(totals(all.body.data!).count).toBe(7);
    // Rows are summed over users: one per model and hour.
    expect(new Set(all.body.data!.map((r) => `${r.model_name}|${r.created_at}`)).size).toBe(all.body.data!.length);
    const onlyBob = await root.call<Row[]>('GET', '/api/data/?username=bob');
    expect(totals(onlyBob.body.data!)).toEqual({ count: 2, token_used: 74, quota: 1000 });
    const nobody = await root.call<Row[]>('GET', '/api/data/?username=nobody');
    expect(nobody.body.data).toEqual([]);
  });

  it("reads the asked time range, defaults to DataExportDefaultTime's span and rejects a reversed range", async () => {
    const now = Math.floor(Date.now() / 1000);
    const tenDaysAgo = now - 10 * 86_400 - ((now - 10 * 86_400) % HOUR);
    await k()
      .insertInto('quota_data')
      .values({
        user_id: bob.userId!,
        username: 'bob',
        model_name: 'old-model',
        created_at: tenDaysAgo,
        token_used: 9,
        count: 4,
        quota: 90,
      })
      .execute();
    const models = async (url: string) =>
      new Set((await bob.call<Row[]>('GET', url)).body.data!.map((r) => r.model_name));

    expect(await models('/api/data/self')).toEqual(new Set(['dash-a'])); // default 'hour': the last day
    expect(await models(`/api/data/self?start_timestamp=${tenDaysAgo + 1}&end_timestamp=${tenDaysAgo + 60}`)).toEqual(
      new Set(['old-model']),
    );
    expect(await models(`/api/data/self?start_timestamp=${now + 7200}`)).toEqual(new Set());
    await root.call('PUT', '/api/option/', { key: 'DataExportDefaultTime', value: 'week' });
    expect(await models('/api/data/self')).toEqual(new Set(['dash-a', 'old-model'])); // 'week': the last 30 days
    await root.call('PUT', '/api/option/', { key: 'DataExportDefaultTime', value: 'hour' });

    const reversed = await bob.call('GET', `/api/data/self?start_timestamp=${now}&end_timestamp=${now - 10}`);
    expectRefused(reversed);
    expect(reversed.body.message).toBe('invalid query: "start_timestamp" must not be after end_timestamp');
    const junk = await root.call('GET', '/api/data/?start_timestamp=yesterday');
    expectRefused(junk);
    expect(junk.body.message).toMatch(/^invalid query: "start_timestamp" /);
    await k().deleteFrom('quota_data').where('model_name', '=', 'old-model').execute();
  });

  it('keeps no aggregates while DataExportEnabled is off; logs are still written', async () => {
    const before = await aggregates();
    const logsBefore = (await fromLogs()).size;
    expect((await root.call('PUT', '/api/option/', { key: 'DataExportEnabled', value: 'false' })).body.success).toBe(
      true,
    );
    await Promise.all([ask(aliceSdk, 'dash-a'), ask(bobSdk, 'dash-a')]);
    await drainWriter(t);
    expect(byKey(await aggregates())).toEqual(byKey(before));
    const logs = await k()
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 2)
      .executeTakeFirstOrThrow();
    expect(Number(logs.n)).toBe(9);
    expect(logsBefore).toBeGreaterThan(0);

    await root.call('PUT', '/api/option/', { key: 'DataExportEnabled', value: 'true' });
    await ask(aliceSdk, 'dash-a');
    await drainWriter(t);
    expect(totals((await alice.call<Row[]>('GET', '/api/data/self')).body.data!).count).toBe(6);
  });

  it('a journal replayed after a crash adds its consume logs to the aggregates exactly once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-qd-'));
    const uid = bob.userId!;
    const hour = 1_700_000_000 - (1_700_000_000 % HOUR);
    const rec = (i: number, model: string): WriteRecord => ({
      userId: uid,
      tokenId: 0,
      tokenLimited: false,
      channelId: 0,
      quota: 10,
      countsRequest: true,
      log: logRow({
        user_id: uid,
        created_at: hour + i,
        username: 'bob',
        model_name: model,
        quota: 10,
        prompt_tokens: i,
        completion_tokens: 1,
        request_id: `replay-${i}`,
      }),
    });
    const batch = {
      id: `qd-crash-${dialect}`,
      hourly: true,
      records: [rec(1, 'replayed'), rec(2, 'replayed'), rec(3, 'replayed-2')],
    };
    const journal = path.join(dir, 'writer-journal.jsonl');
    const log = pino({ level: 'silent' });
    try {
      fs.writeFileSync(journal, `${JSON.stringify(batch)}\n${JSON.stringify(batch)}\n`);
      const w = new DurableWriter(t.database.db, { dataDir: dir, log });
      expect(await w.start()).toBe(3);
      await w.stop();
      fs.writeFileSync(journal, `${JSON.stringify(batch)}\n`);
      const again = new DurableWriter(t.database.db, { dataDir: dir, log });
      expect(await again.start()).toBe(0);
      await again.stop();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const rows = await k()
      .selectFrom('quota_data')
      .selectAll()
      .where('model_name', 'like', 'replayed%')
      .orderBy('model_name')
      .execute();
    expect(
      rows.map((r) => ({
        m: r.model_name,
        at: Number(r.created_at),
        count: Number(r.count),
        tokens: Number(r.token_used),
        quota: Number(r.quota),
      })),
    ).toEqual([
      { m: 'replayed', at: hour, count: 2, tokens: 1 + 2 + 2, quota: 20 },
      { m: 'replayed-2', at: hour, count: 1, tokens: 4, quota: 10 },
    ]);
  });
});
