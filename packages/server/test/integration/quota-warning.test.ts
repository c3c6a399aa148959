import crypto from 'node:crypto';
import http from 'node:http';
import { Agent, getGlobalDispatcher, request, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuotaWarningStore } from '../../src/modules/notifications/store.js';
import { createUserClient, startTestApp, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, listen, setQuota } from '../support/gateway.js';
import { listenLocally } from '../support/local-server.js';
import { startMockSmtp, type MockSmtp } from '../support/mock-smtp.js';
import { startMockUpstream } from '../support/mock-upstream.js';
import { startMockWebhook, TEST_TLS_CERT, type MockWebhook } from '../support/mock-webhook.js';

// Each call costs $0.10 = 50,000 quota (fixed model price); thresholds are $0.40 = 200,000.
const THRESHOLD = 200_000;

describe.each(dialects)('quota warnings on %s', (dialect) => {
  let t: TestApp, root: Client, base: string, smtp: MockSmtp, hook: MockWebhook;
  let previousDispatcher: Dispatcher;
  beforeAll(async () => {
    smtp = await startMockSmtp();
    hook = await startMockWebhook();
    // Webhook URLs must be https: the server's undici calls trust the receiver's test certificate.
    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: TEST_TLS_CERT } }));
  });
  useGateway(dialect, { mock: () => startMockUpstream({ record: false }) }, async (gw) => {
    ({ t, root, base } = gw);
    const options: Record<string, string> = {
      ModelPrice: JSON.stringify({ 'fixed-model': 0.1 }),
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPAccount: smtp.user,
      SMTPToken: smtp.pass,
      SMTPFrom: 'gateway@example.test',
      SystemName: 'Tollway Test',
      // The webhook receivers listen on 127.0.0.1 at a random port: the outbound guard must allow both.
      'fetch_setting.allow_private_ip': 'true',
      'fetch_setting.allowed_ports': '[]',
    };
    for (const [key, value] of Object.entries(options))
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
    await addChannel(root, { name: 'fixed', key: 'ok-key', baseUrl: gw.mock.url, models: 'fixed-model' });
  });
  afterAll(async () => {
    setGlobalDispatcher(previousDispatcher);
    await smtp?.close();
    await hook?.close();
  });

  const option = async (key: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
  const chatVia = async (at: string, key: string) => {
    const res = await request(`${at}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fixed-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.body.dump();
    return res.statusCode;
  };
  const chat = (key: string) => chatVia(base, key);
  /** Commits every settled call, then waits for the warnings it caused (so "nothing more" is a real check). */
  const settle = async (app: TestApp = t) => {
    await drainWriter(app);
    await app.runtime.ctx.relay.quotaWarnings.idle();
  };
  const userRow = async (id: number) => {
    const r = await t.database.db.kysely
      .selectFrom('users')
      .select(['quota', 'quota_warned_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return { quota: Number(r.quota), warnedAt: Number(r.quota_warned_at) };
  };
  const newUser = async (name: string, quota: number, setting?: Record<string, unknown>, email?: string) => {
    const client = await createUserClient(t.app, root, name);
    const id = client.userId!;
    await setQuota(root, id, quota);
    if (email) expect((await root.call('PUT', '/api/user/', { id, email })).body.success).toBe(true);
    if (setting) {
      const res = await client.call('PUT', '/api/user/setting', setting);
      expect(res.body).toMatchObject({ success: true });
    }
    const { key } = await addToken(t, id, {});
    return { client, id, key };
  };
  const hooksFor = (userId: number) => hook.hooks.filter((h) => h.body.user_id === userId);

  it('mails once when a call crosses the threshold, not again while below, and again after a top-up and a new crossing', async () => {
    const to = 'alerts@example.com';
    const u = await newUser(
      'mail-user',
      250_000,
      { notify_type: 'email', quota_warning_threshold: THRESHOLD, notification_email: to },
      'mail-user@example.com',
    );
    expect(await chat(u.key)).toBe(200);
    await settle();
    // Down to 200,000: at the threshold, not below it.
    expect(smtp.to(to)).toHaveLength(0);
    expect(await chat(u.key)).toBe(200);
    await settle();
    const mails = smtp.to(to);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.from).toBe('gateway@example.test');
    expect(mails[0]!.subject).toBe('Tollway Test quota warning');
    expect(mails[0]!.text).toContain('Your remaining quota is $0.30, below your warning threshold of $0.40.');
    expect(smtp.to('mail-user@example.com')).toHaveLength(0);
    expect((await userRow(u.id)).warnedAt).toBeGreaterThan(0);

    // Still below: nothing more.
    expect(await chat(u.key)).toBe(200);
    expect(await chat(u.key)).toBe(200);
    await settle();
    expect(smtp.to(to)).toHaveLength(1);
    expect((await userRow(u.id)).quota).toBe(50_000);

    // An admin edit that stays below the threshold does not arm it again.
    await setQuota(root, u.id, 180_000);
    expect(await chat(u.key)).toBe(200);
    await settle();
    expect(smtp.to(to)).toHaveLength(1);

    // A top-up above the threshold arms it; the next crossing warns once more.
    await setQuota(root, u.id, 260_000);
    expect((await userRow(u.id)).warnedAt).toBe(0);
    expect(await chat(u.key)).toBe(200);
    await settle();
    expect(smtp.to(to)).toHaveLength(1);
    expect(await chat(u.key)).toBe(200);
    await settle();
    expect(smtp.to(to)).toHaveLength(2);
    expect(smtp.to(to)[1]!.text).toContain('Your remaining quota is $0.32, below your warning threshold of $0.40.');
  });

  it('uses QuotaRemindThreshold and the account e-mail for a user who never saved settings', async () => {
    await option('QuotaRemindThreshold', String(THRESHOLD));
    try {
      const u = await newUser('default-user', 230_000, undefined, 'default-user@example.com');
      expect(await chat(u.key)).toBe(200);
      await settle();
      const mails = smtp.to('default-user@example.com');
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain('Your remaining quota is $0.36, below your warning threshold of $0.40.');
    } finally {
      await option('QuotaRemindThreshold', '1000');
    }
  });

  it('posts one signed quota_exceed webhook per crossing', async () => {
    const secret = 'hook-secret-123';
    const u = await newUser('hook-user', 250_000, {
      notify_type: 'webhook',
      quota_warning_threshold: THRESHOLD,
      webhook_url: `${hook.url}/tollway`,
      webhook_secret: secret,
    });
    expect(await chat(u.key)).toBe(200);
    await settle();
    expect(hooksFor(u.id)).toHaveLength(0);
    const before = Math.floor(Date.now() / 1000);
    expect(await chat(u.key)).toBe(200);
    await settle();
    const got = hooksFor(u.id);
    expect(got).toHaveLength(1);
    const h = got[0]!;
    expect(h.headers['content-type']).toBe('application/json');
    expect(h.headers['x-tollway-signature']).toBe(
      `sha256=${crypto.createHmac('sha256', secret).update(h.raw).digest('hex')}`,
    );
    expect(h.body).toEqual({
      type: 'quota_exceed',
      title: 'Tollway Test quota warning',
      content:
        'Your remaining quota is $0.30, below your warning threshold of $0.40. Top up to keep your API calls working.',
      user_id: u.id,
      username: 'hook-user',
      quota: 150_000,
      threshold: THRESHOLD,
      timestamp: expect.any(Number),
    });
    expect(h.body.timestamp as number).toBeGreaterThanOrEqual(before - 1);
    expect(h.body.timestamp as number).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);

    expect(await chat(u.key)).toBe(200);
    await settle();
    expect(hooksFor(u.id)).toHaveLength(1);

    // A top-up above the threshold, then a new crossing: one more.
    await setQuota(root, u.id, 210_000);
    expect(await chat(u.key)).toBe(200);
    await settle();
    const again = hooksFor(u.id);
    expect(again).toHaveLength(2);
    expect(again[1]!.body).toMatchObject({ quota: 160_000, threshold: THRESHOLD });
    expect(smtp.mails.filter((m) => m.to.includes('hook-user@example.com'))).toHaveLength(0);
  });

  it('warns nobody without a threshold or a destination', async () => {
    const zero = await newUser('zero-user', 210_000, {
      notify_type: 'email',
      quota_warning_threshold: 0,
      notification_email: 'zero@example.com',
    });
    await option('QuotaRemindThreshold', '0');
    let noSetting: Awaited<ReturnType<typeof newUser>>;
    try {
      noSetting = await newUser('optionless-user', 210_000, undefined, 'optionless@example.com');
      expect(await chat(zero.key)).toBe(200);
      expect(await chat(noSetting.key)).toBe(200);
      await settle();
    } finally {
      await option('QuotaRemindThreshold', '1000');
    }
    // A threshold but no address at all: nothing sent and nothing used up.
    const nowhere = await newUser('nowhere-user', 210_000, {
      notify_type: 'email',
      quota_warning_threshold: THRESHOLD,
    });
    expect(await chat(nowhere.key)).toBe(200);
    await settle();
    expect(smtp.to('zero@example.com')).toHaveLength(0);
    expect(smtp.to('optionless@example.com')).toHaveLength(0);
    expect(smtp.mails.filter((m) => m.to.some((r) => r.startsWith('nowhere')))).toHaveLength(0);
    for (const id of [zero.id, noSetting.id, nowhere.id])
      expect(await userRow(id)).toEqual({ quota: 160_000, warnedAt: 0 });
  });

  it('a failing or unreachable webhook receiver breaks neither the call nor its billing', async () => {
    hook.status = 500;
    try {
      const failing = await newUser('failing-hook', 210_000, {
        notify_type: 'webhook',
        quota_warning_threshold: THRESHOLD,
        webhook_url: `${hook.url}/fail`,
      });
      expect(await chat(failing.key)).toBe(200);
      await settle();
      const got = hooksFor(failing.id);
      expect(got).toHaveLength(1);
      expect(got[0]!.headers['x-tollway-signature']).toBeUndefined();
      expect(await chat(failing.key)).toBe(200);
      await settle();
      expect(hooksFor(failing.id)).toHaveLength(1);
      expect((await userRow(failing.id)).quota).toBe(110_000);
    } finally {
      hook.status = 200;
    }

    const closed = await listenLocally(http.createServer());
    await closed.close();
    const down = await newUser('down-hook', 210_000, {
      notify_type: 'webhook',
      quota_warning_threshold: THRESHOLD,
      webhook_url: `https://127.0.0.1:${closed.port}/hook`,
    });
    expect(await chat(down.key)).toBe(200);
    await settle();
    expect(await chat(down.key)).toBe(200);
    await settle();
    expect(await userRow(down.id)).toEqual({ quota: 110_000, warnedAt: expect.any(Number) });
    expect((await userRow(down.id)).warnedAt).toBeGreaterThan(0);
  });

  it('claims a crossing for one caller only (the conditional UPDATE)', async () => {
    const u = await newUser('claim-user', 100_000);
    const store = new QuotaWarningStore(t.database.db);
    const now = Math.floor(Date.now() / 1000);
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.claim(u.id, THRESHOLD, now)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    // Not above the threshold: stays claimed; above it: armed again, once.
    expect(await store.rearm(u.id, THRESHOLD)).toBe(false);
    await t.database.db.kysely.updateTable('users').set({ quota: THRESHOLD }).where('id', '=', u.id).execute();
    expect(await Promise.all([store.rearm(u.id, THRESHOLD), store.rearm(u.id, THRESHOLD)])).toEqual(
      expect.arrayContaining([true, false]),
    );
  });

  it('concurrent calls crossing at once on two nodes send one warning', async () => {
    // Either node's three calls alone take the balance below the threshold, so both nodes see a crossing.
    const u = await newUser('race-user', 300_000, {
      notify_type: 'webhook',
      quota_warning_threshold: THRESHOLD,
      webhook_url: `${hook.url}/race`,
    });
    const other = await startTestApp(dialect, {}, t.database);
    try {
      const otherBase = await listen(other);
      const statuses = await Promise.all(Array.from({ length: 6 }, (_, i) => chatVia(i % 2 ? otherBase : base, u.key)));
      expect(statuses).toEqual(Array(6).fill(200));
      await Promise.all([settle(t), settle(other)]);
      expect((await userRow(u.id)).quota).toBe(0);
      expect(hooksFor(u.id)).toHaveLength(1);
      expect(hooksFor(u.id)[0]!.body.type).toBe('quota_exceed');

      // Armed again and below the threshold (an admin edit warns nobody), then both nodes check the user in the
      // same instant: both read an armed user, one claims it.
      await setQuota(root, u.id, 300_000);
      await setQuota(root, u.id, 100_000);
      expect(await userRow(u.id)).toEqual({ quota: 100_000, warnedAt: 0 });
      await settle();
      expect(hooksFor(u.id)).toHaveLength(1);
      t.runtime.ctx.relay.quotaWarnings.charged([u.id]);
      other.runtime.ctx.relay.quotaWarnings.charged([u.id]);
      await Promise.all([settle(t), settle(other)]);
      expect(hooksFor(u.id)).toHaveLength(2);
    } finally {
      await other.close();
    }
  });
});
