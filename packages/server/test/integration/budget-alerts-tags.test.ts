import crypto from 'node:crypto';
import OpenAI from 'openai';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodStart } from '../../src/core/period-limits/periods.js';
import type { Client, TestApp } from '../support/app.js';
import { createUserClient } from '../support/app.js';
import { concurrently, consumeLogs, createBudget, taggedCall } from '../support/budgets.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter } from '../support/gateway.js';
import { startMockWebhook, TEST_TLS_CERT, type MockWebhook } from '../support/mock-webhook.js';
import { startMockSmtp, type MockSmtp } from '../support/mock-smtp.js';
import { insertMember, insertOrg, insertOrgToken } from '../support/org-rows.js';
import { FIXED_MODEL, PER_CALL } from '../support/period-limits.js';

const SECRET = 'whsec-budget-test';

/** Waits until `check` holds (the alerts are sent after the calls' settlement, off their path). */
async function until(check: () => Promise<boolean> | boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(dialects)('budget alerts and spend tags (%s)', (dialect) => {
  let t: TestApp, root: Client, base: string, hook: MockWebhook, smtp: MockSmtp;
  let previousDispatcher: Dispatcher;
  beforeAll(async () => {
    hook = await startMockWebhook();
    smtp = await startMockSmtp();
    // The receiver is https with the test certificate on 127.0.0.1: trusted, and the outbound guard told to allow it.
    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: TEST_TLS_CERT } }));
  });
  useGateway(dialect, {}, async (gw) => {
    ({ t, root, base } = gw);
    const options: Record<string, string> = {
      ModelPrice: JSON.stringify({ [FIXED_MODEL]: 0.001 }),
      'fetch_setting.allow_private_ip': 'true',
      'fetch_setting.allowed_ports': '[]',
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPAccount: smtp.user,
      SMTPToken: smtp.pass,
      SMTPFrom: 'gateway@example.test',
    };
    for (const [key, value] of Object.entries(options))
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
    await addChannel(root, { name: 'main', key: 'main-key', baseUrl: gw.mock.url, models: FIXED_MODEL });
  });
  afterAll(async () => {
    setGlobalDispatcher(previousDispatcher);
    await hook?.close();
    await smtp?.close();
  });

  it('a soft budget serves every call and alerts once per threshold: signed webhook, e-mail to owners and admins', async () => {
    const org = await insertOrg(t, 'soft', { quota: 100_000_000, webhookUrl: hook.url, webhookSecret: SECRET });
    const owner = await createUserClient(t.app, root, `so-${dialect.slice(0, 2)}`);
    await insertMember(t, org.orgId, owner.userId!, 'owner');
    const viewer = await createUserClient(t.app, root, `sv-${dialect.slice(0, 2)}`);
    await insertMember(t, org.orgId, viewer.userId!, 'viewer');
    const ownerMail = `owner-${dialect}@example.test`;
    const viewerMail = `viewer-${dialect}@example.test`;
    for (const [id, email] of [
      [owner.userId!, ownerMail],
      [viewer.userId!, viewerMail],
    ] as const)
      await t.runtime.ctx.db.kysely.updateTable('users').set({ email }).where('id', '=', id).execute();
    const token = await insertOrgToken(t, org, owner.userId!);
    const limit = 4 * PER_CALL;
    const b = await createBudget(owner, org.orgId, {
      level: 'org',
      period: 'month',
      limit_quota: limit,
      hard: false,
      alert_percents: [50, 100],
      alert_email: true,
      alert_webhook: true,
    });
    const { statuses } = await concurrently(10, () => taggedCall(base, token.key));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const ours = () => hook.hooks.filter((h) => h.body.budget_id === b.id);
    await until(() => ours().length === 2 && smtp.to(ownerMail).length === 2);
    const start = periodStart('month', Date.now());
    const rows = await t.runtime.ctx.db.kysely
      .selectFrom('budget_alerts')
      .select(['percent', 'period_start'])
      .where('budget_id', '=', b.id)
      .orderBy('percent')
      .execute();
    expect(rows.map((r) => [Number(r.percent), Number(r.period_start)])).toEqual([
      [50, start],
      [100, start],
    ]);
    for (const h of ours()) {
      const signature = `sha256=${crypto.createHmac('sha256', SECRET).update(h.raw).digest('hex')}`;
      expect(h.headers['x-tollway-signature']).toBe(signature);
      expect(h.body).toMatchObject({
        org_id: org.orgId,
        budget_id: b.id,
        level: 'org',
        target_id: 0,
        tag: '',
        period: 'month',
        limit_quota: limit,
        period_start: start,
      });
      expect(Number(h.body.used_quota)).toBeGreaterThanOrEqual((Number(h.body.percent) * limit) / 100);
    }
    expect(
      ours()
        .map((h) => h.body.percent)
        .sort(),
    ).toEqual([100, 50]);
    // More calls past the thresholds send nothing again.
    for (let i = 0; i < 3; i++) expect((await taggedCall(base, token.key)).status).toBe(200);
    await drainWriter(t);
    await new Promise((r) => setTimeout(r, 200));
    expect(ours()).toHaveLength(2);
    expect(smtp.to(ownerMail)).toHaveLength(2);
    expect(smtp.to(viewerMail)).toHaveLength(0);
    const view = (await owner.call<{ used_quota: number }[]>('GET', `/api/org/${org.orgId}/budgets`)).body.data!;
    expect(view[0]!.used_quota).toBe(13 * PER_CALL);
  });

  it('tags are bounded: 11 tags, a 33-character tag or a bad character are a 400 tags_invalid (OpenAI SDK)', async () => {
    const user = await createUserClient(t.app, root, `tg-${dialect.slice(0, 2)}`);
    await root.call('PUT', '/api/user/', { id: user.userId, quota: 10_000_000 });
    const { key } = await addToken(t, user.userId!);
    const client = (tags: string) =>
      new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0, defaultHeaders: { 'x-tollway-tags': tags } });
    const call = (c: OpenAI, metadata?: Record<string, string>) =>
      c.chat.completions.create({
        model: FIXED_MODEL,
        max_tokens: 20,
        messages: [{ role: 'user', content: 'tag me' }],
        ...(metadata ? { metadata } : {}),
      });
    const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`).join(',');
    for (const bad of [eleven, 'x'.repeat(33), 'bad tag', 'semi;colon']) {
      const err = await call(client(bad)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('tags_invalid');
    }
    // Ten tags of 32 characters pass; the header and metadata.tags count together, each tag once.
    const ten = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(32, 'x')).join(',');
    expect((await call(client(ten))).choices).toBeDefined();
    await call(client('a,b'), { tags: 'b,c' });
    const err = await call(client('a'), { tags: Array.from({ length: 10 }, (_, i) => `m${i}`).join(',') }).catch(
      (e: unknown) => e,
    );
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('tags_invalid');
    // A personal call's tags are in its log row (member and team 0).
    const rows = await consumeLogs(t, user.userId!);
    expect(rows.map((r) => r.tags)).toEqual([`,${ten},`, ',a,b,c,']);
    expect(rows.every((r) => Number(r.member_id) === 0 && Number(r.team_id) === 0)).toBe(true);
  });
});
