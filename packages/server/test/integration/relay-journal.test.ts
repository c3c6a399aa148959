import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

const chat = (base: string, key: string, body: Record<string, unknown>) =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The lines of the journal's segment files, parsed. */
function journalLines(
  dataDir: string,
): { k: string; i?: string; r?: { quota: number; log?: { request_id: string } } }[] {
  const dir = path.join(dataDir, 'journal');
  return fs
    .readdirSync(dir)
    .sort()
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as { k: string });
}

describe.each(dialects)('relay calls in the journal on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  useGateway(dialect, { mock: () => startMockUpstream({ record: false }) }, async (gw) => {
    ({ t, mock, root, base } = gw);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ 'journal-model': 0.002 }) });
    await addChannel(root, { name: 'journal', key: 'ok-key', baseUrl: mock.url, models: 'journal-model' });
  });

  it('names each call by the x-oneapi-request-id header, the id its consume log row carries', async () => {
    const u = await createUserClient(t.app, root, 'journal-user');
    await setQuota(root, u.userId!, 100_000);
    const { key } = await addToken(t, u.userId!, {});
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await chat(base, key, { model: 'journal-model', messages: [{ role: 'user', content: `hi ${i}` }] });
      expect(res.status).toBe(200);
      await res.text();
      ids.push(res.headers.get('x-oneapi-request-id')!);
    }
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}[0-9a-z]{8}$/);
    await drainWriter(t);
    const rows = await t.database.db.kysely
      .selectFrom('logs')
      .select(['request_id', 'quota'])
      .where('user_id', '=', u.userId!)
      .where('type', '=', 2)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.request_id, Number(r.quota)])).toEqual(ids.map((id) => [id, 1000]));
  });

  it('opens each call in the journal at its reservation before it goes upstream and closes it with its settlement', async () => {
    const u = await createUserClient(t.app, root, 'journal-open-user');
    await setQuota(root, u.userId!, 100_000);
    const { key } = await addToken(t, u.userId!, {});
    mock.behaviors.set('ok-key', { delayMs: 300 });
    try {
      const pending = chat(base, key, { model: 'journal-model', messages: [{ role: 'user', content: 'slow' }] });
      // While the upstream thinks, the journal already holds the call's bill at its reservation.
      await expect
        .poll(() => journalLines(t.config.dataDir).filter((l) => l.k === 'o' && l.r?.log?.request_id))
        .toHaveLength(1);
      const open = journalLines(t.config.dataDir).find((l) => l.k === 'o')!;
      expect(open.r!.quota).toBe(1000);
      const res = await pending;
      const id = res.headers.get('x-oneapi-request-id')!;
      expect(open.i).toBe(id);
      expect(open.r!.log!.request_id).toBe(id);
      await res.text();
      // Settled and committed: the segment that opened it is deleted.
      await expect
        .poll(async () => {
          await drainWriter(t);
          return journalLines(t.config.dataDir).some((l) => l.i === id);
        })
        .toBe(false);
      await drainWriter(t);
    } finally {
      mock.behaviors.delete('ok-key');
    }
  });

  it('refunds a call the upstream refused and closes it in the journal without a charge', async () => {
    const u = await createUserClient(t.app, root, 'journal-refund-user');
    await setQuota(root, u.userId!, 100_000);
    const { key } = await addToken(t, u.userId!, {});
    mock.behaviors.set('ok-key', { failStatus: 400 });
    try {
      const res = await chat(base, key, { model: 'journal-model', messages: [{ role: 'user', content: 'no' }] });
      expect(res.status).toBe(400);
      const id = res.headers.get('x-oneapi-request-id')!;
      expect(id).toBeTruthy();
      await res.text();
      // Closed by a refund line: nothing of the call stays in the journal once its segment is done.
      await expect
        .poll(async () => {
          await drainWriter(t);
          return journalLines(t.config.dataDir).some((l) => l.i === id);
        })
        .toBe(false);
    } finally {
      mock.behaviors.delete('ok-key');
    }
    await drainWriter(t);
    const user = await t.database.db.kysely
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', u.userId!)
      .executeTakeFirstOrThrow();
    expect([Number(user.quota), Number(user.used_quota)]).toEqual([100_000, 0]);
  });
});
