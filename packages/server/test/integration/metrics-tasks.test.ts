import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import { parseSamples, sampleValue } from '../support/prometheus-text.js';

const TOKEN = 'metrics-token-0123456789';
const MUSIC_PRICE = 0.1;
const MAX_PASSES = 10;

describe('task quota in the metrics', () => {
  const gw = useGateway<MockSuno>(
    'sqlite',
    { env: { METRICS_TOKEN: TOKEN }, user: 'task-metrics-user', quota: 10_000_000, mock: startMockSuno },
    async (g) => {
      await addChannel(g.root, {
        name: 'suno',
        key: MOCK_SUNO_KEY,
        baseUrl: g.mock.url,
        models: 'suno_music',
        type: ChannelType.SunoAPI,
      });
      await g.root.call('PUT', '/api/option/', {
        key: 'ModelPrice',
        value: JSON.stringify({ suno_music: MUSIC_PRICE }),
      });
    },
  );
  const scrape = async () =>
    parseSamples(
      (await gw.t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body,
    );
  const submit = async (prompt: string) => {
    const res = await fetch(`${gw.base}/suno/submit/music`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: string }).data;
  };

  it('counts task charges at submission and the refund of a failed task once, as the logs table has them', async () => {
    const before = await scrape();
    const ok = await submit('a song that works');
    const failing = await submit('this one will fail');
    for (let i = 0; i < MAX_PASSES; i++) await gw.t.runtime.taskPoller.job.runOnce();
    await drainWriter(gw.t);
    const after = await scrape();
    const delta = (name: string) =>
      sampleValue(after, name, { source: 'task' }) - sampleValue(before, name, { source: 'task' });
    const logs = await gw.t.database.db.kysely
      .selectFrom('logs')
      .select(['type', 'quota', 'other'])
      .where('user_id', '=', gw.user.userId!)
      .execute();
    const ofTask = (id: string) => logs.filter((l) => String(l.other).includes(id));
    const charges = [...ofTask(ok), ...ofTask(failing)].filter((l) => l.type === 2);
    const refunds = ofTask(failing).filter((l) => JSON.parse(String(l.other)).task_refund !== undefined);
    expect(charges).toHaveLength(2);
    expect(refunds).toHaveLength(1);
    expect(delta('tollway_quota_charged_total')).toBe(charges.reduce((n, l) => n + Number(l.quota), 0));
    expect(delta('tollway_quota_refunded_total')).toBe(Number(refunds[0]!.quota));
    expect(delta('tollway_quota_refunded_total')).toBeGreaterThan(0);
  });
});
