import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { startMockRealtime, type MockRealtime } from '../support/mock-realtime.js';
import { parseSamples, sampleValue } from '../support/prometheus-text.js';

const TOKEN = 'metrics-token-0123456789';
const MODEL = 'gpt-4o-realtime-preview';
const RESPONSES = 3;

describe('realtime quota in the metrics', () => {
  const gw = useGateway<MockRealtime>(
    'sqlite',
    { env: { METRICS_TOKEN: TOKEN }, user: 'rt-metrics-user', quota: 1_000_000, mock: startMockRealtime },
    async (g) => {
      await addChannel(g.root, { name: 'rt', key: 'rt-key', baseUrl: g.mock.url, models: MODEL });
      await g.root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 2.5 }) });
    },
  );
  const charged = async () =>
    sampleValue(
      parseSamples(
        (await gw.t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body,
      ),
      'tollway_quota_charged_total',
      {
        source: 'realtime',
      },
    );

  it("counts each settled response's charge, as its consume log has it", async () => {
    const before = await charged();
    const ws = new WebSocket(`${gw.base.replace('http', 'ws')}/v1/realtime?model=${MODEL}`, [], {
      headers: { authorization: `Bearer ${gw.key}` },
    });
    let done = 0;
    const allDone = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const type = (JSON.parse(data.toString()) as { type: string }).type;
        if (type === 'session.created')
          for (let i = 0; i < RESPONSES; i++) ws.send(JSON.stringify({ type: 'response.create' }));
        if (type === 'response.done' && ++done === RESPONSES) resolve();
      }),
    );
    await allDone;
    ws.close();
    let logs: { quota: number }[] = [];
    for (let i = 0; i < 100 && logs.length < RESPONSES; i++) {
      await new Promise((r) => setTimeout(r, 50));
      await drainWriter(gw.t);
      logs = await gw.t.database.db.kysely
        .selectFrom('logs')
        .select('quota')
        .where('model_name', '=', MODEL)
        .where('type', '=', 2)
        .execute();
    }
    expect(logs).toHaveLength(RESPONSES);
    const logged = logs.reduce((n, l) => n + Number(l.quota), 0);
    expect(logged).toBeGreaterThan(0);
    expect((await charged()) - before).toBe(logged);
  });
});
