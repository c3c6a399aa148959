import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChannelPublic, TokenPublic, UserPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { OptionsService, secretOptionKeys } from '../../src/core/options/service.js';
import { OptionsStore } from '../../src/core/options/store.js';
import { warningTarget } from '../../src/modules/notifications/target.js';
import { Client, createUserClient, setupRoot, startTestApp, ROOT, type TestApp } from '../support/app.js';
import { createTestDatabase, dialects } from '../support/databases.js';
import { revealChannelKey } from '../support/channel-key.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { makeServiceAccount } from '../support/mock-vertex.js';

const CRYPTO_SECRET = 'test-crypto-secret-for-secrets-at-rest';
const CHANNEL_KEY = 'sk-upstream-plain-0123456789abcdef';
const WEBHOOK_SECRET = 'whsec-plain-secret-42';
const SEALED = /^enc:v1:[A-Za-z0-9_-]+$/;

/** A distinct plaintext per secret option, so each raw row can be checked for it. */
const optionPlain = (key: string) => `plain-${key.replace(/\W/g, '-')}-value-7781`;

async function rawChannelKey(t: TestApp, id: number): Promise<string> {
  return (
    await t.database.db.kysely.selectFrom('channels').select('key').where('id', '=', id).executeTakeFirstOrThrow()
  ).key;
}
async function rawUser(t: TestApp, id: number) {
  return t.database.db.kysely
    .selectFrom('users')
    .select(['setting', 'access_token'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}
async function rawOption(t: TestApp, key: string): Promise<string> {
  return (
    (await t.database.db.kysely.selectFrom('options').select('value').where('key', '=', key).executeTakeFirstOrThrow())
      .value ?? ''
  );
}
async function warningUser(t: TestApp, id: number) {
  const u = await t.database.db.kysely.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return {
    id: u.id,
    username: u.username,
    email: u.email ?? '',
    quota: Number(u.quota),
    setting: u.setting ?? '',
    warnedAt: 0,
  };
}
const webhookSetting = {
  notify_type: 'webhook',
  quota_warning_threshold: 1000,
  webhook_url: 'https://hooks.example.com/tollway',
  webhook_secret: WEBHOOK_SECRET,
};
const secretIn = (setting: string): unknown => (JSON.parse(setting) as { webhook_secret?: unknown }).webhook_secret;

describe.each(dialects)('secrets at rest with CRYPTO_SECRET on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, user: Client, base: string, key: string, channelId: number;
  const gw = useGateway(
    dialect,
    { env: { CRYPTO_SECRET }, admins: ['sealed-admin'], user: 'sealed-user', quota: 1_000_000 },
    async (g) => {
      ({ t, root, base, key, user } = g);
      admin = g.admins[0]!;
      channelId = await addChannel(root, {
        name: 'sealed-channel',
        key: CHANNEL_KEY,
        baseUrl: g.mock.url,
        models: 'gpt-4o-mini',
      });
    },
  );

  it('stores the channel key sealed; the relay sends the plaintext key upstream; root reads it back, lists mask it', async () => {
    const raw = await rawChannelKey(t, channelId);
    expect(raw).toMatch(SEALED);
    expect(raw).not.toContain(CHANNEL_KEY);
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(gw.mock.requests.at(-1)!.key).toBe(CHANNEL_KEY);
    await drainWriter(t);
    // The writer journal (its folder and segment files) is owner-only.
    const journalDir = path.join(t.config.dataDir, 'journal');
    expect(fs.statSync(journalDir).mode & 0o777).toBe(0o700);
    // The writer drops applied segments at any time: a file listed may be gone when read (the active one stays).
    const modes = fs
      .readdirSync(journalDir)
      .map((f) => fs.statSync(path.join(journalDir, f), { throwIfNoEntry: false })?.mode)
      .filter((m) => m !== undefined);
    expect(modes.length).toBeGreaterThan(0);
    for (const mode of modes) expect(mode & 0o777).toBe(0o600);
    expect(await revealChannelKey(root, channelId)).toBe(CHANNEL_KEY);
    const list = await root.call<{ items: ChannelPublic[] }>('GET', '/api/channel/?p=1&page_size=50');
    expect(list.body.data!.items.find((c) => c.id === channelId)!.key).toBe('sk-********cdef');
    // An edit that leaves the key out keeps it; a new key is sealed too.
    expect((await root.call('PUT', '/api/channel/', { id: channelId, name: 'sealed-renamed' })).body.success).toBe(
      true,
    );
    expect(t.runtime.ctx.channelCache.get(channelId)!.keys).toEqual([CHANNEL_KEY]);
    expect((await root.call('PUT', '/api/channel/', { id: channelId, key: `${CHANNEL_KEY}-2` })).body.success).toBe(
      true,
    );
    expect(await rawChannelKey(t, channelId)).toMatch(SEALED);
    expect(t.runtime.ctx.channelCache.get(channelId)!.keys).toEqual([`${CHANNEL_KEY}-2`]);
    expect((await root.call('PUT', '/api/channel/', { id: channelId, key: CHANNEL_KEY })).body.success).toBe(true);
  });

  it('seals multi-key, Vertex JSON and AWS keys', async () => {
    const sa = makeServiceAccount('sealed-project', 'https://oauth2.googleapis.com/token').keyText;
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { name: 'sealed-multi', key: 'k-1111111111111111\nk-2222222222222222', models: 'm-multi' },
        'multi_to_single',
        'k-1111111111111111\nk-2222222222222222',
      ],
      [{ name: 'sealed-vertex', key: sa, models: 'gemini-x', type: 41, other: 'us-central1' }, 'single', sa.trim()],
      [
        { name: 'sealed-bedrock', key: 'AKIAPLAINACCESSKEY|plain-aws-secret-key|us-east-1', models: 'm-aws', type: 33 },
        'single',
        'AKIAPLAINACCESSKEY|plain-aws-secret-key|us-east-1',
      ],
    ];
    for (const [channel, mode, expected] of cases) {
      const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', { mode, channel });
      expect(res.body.success).toBe(true);
      const id = res.body.data!.ids[0]!;
      const raw = await rawChannelKey(t, id);
      expect(raw).toMatch(SEALED);
      for (const part of expected.split(/[\n|]/)) expect(raw).not.toContain(part.slice(0, 16));
      expect(await revealChannelKey(root, id)).toBe(expected);
      expect(t.runtime.ctx.channelCache.get(id)!.keys.join('\n')).toBe(expected);
    }
    expect(
      t.runtime.ctx.channelCache.get(
        (
          await t.database.db.kysely
            .selectFrom('channels')
            .select('id')
            .where('name', '=', 'sealed-multi')
            .executeTakeFirstOrThrow()
        ).id,
      )!.keys,
    ).toEqual(['k-1111111111111111', 'k-2222222222222222']);
  });

  it('seals every secret option; the listing leaves them blank and the services read the plaintext', async () => {
    expect(secretOptionKeys.length).toBeGreaterThanOrEqual(9);
    for (const k of secretOptionKeys) {
      const res = await root.call('PUT', '/api/option/', { key: k, value: optionPlain(k) });
      expect(res.body, k).toMatchObject({ success: true });
      const raw = await rawOption(t, k);
      expect(raw, k).toMatch(SEALED);
      expect(raw, k).not.toContain(optionPlain(k));
      expect(t.runtime.ctx.options.get(k)).toBe(optionPlain(k));
    }
    const listed = (await root.call<{ key: string; value: string }[]>('GET', '/api/option/')).body.data!;
    for (const k of secretOptionKeys) expect(listed.find((o) => o.key === k)!.value, k).toBe('');
    expect(JSON.stringify(listed)).not.toContain('-value-7781');
    const fresh = new OptionsService(new OptionsStore(t.database.db), t.runtime.ctx.secretBox);
    await fresh.load();
    for (const k of secretOptionKeys) expect(fresh.get(k)).toBe(optionPlain(k));
  });

  it("seals a user's webhook secret; the owner reads it, administrators see it masked, warnings sign with the plaintext", async () => {
    expect((await user.call('PUT', '/api/user/setting', webhookSetting)).body.success).toBe(true);
    const raw = (await rawUser(t, user.userId!)).setting!;
    expect(raw).not.toContain(WEBHOOK_SECRET);
    expect(secretIn(raw)).toMatch(SEALED);
    const self = (await user.call<UserPublic>('GET', '/api/user/self')).body.data!;
    expect(secretIn(self.setting)).toBe(WEBHOOK_SECRET);
    for (const viewer of [admin, root]) {
      const one = (await viewer.call<UserPublic>('GET', `/api/user/${user.userId}`)).body.data!;
      expect(secretIn(one.setting)).toBe('********');
      expect(JSON.parse(one.setting)).toMatchObject({ webhook_url: webhookSetting.webhook_url });
      const list = await viewer.call<{ items: UserPublic[] }>('GET', '/api/user/?p=1&page_size=100');
      expect(JSON.stringify(list.body)).not.toContain(WEBHOOK_SECRET);
      expect(secretIn(list.body.data!.items.find((u) => u.id === user.userId)!.setting)).toBe('********');
      const search = await viewer.call('GET', '/api/user/search?keyword=sealed-user');
      expect(JSON.stringify(search.body)).not.toContain(WEBHOOK_SECRET);
    }
    const target = warningTarget(await warningUser(t, user.userId!), t.runtime.ctx.options);
    expect(target).toMatchObject({ via: 'webhook', secret: WEBHOOK_SECRET });
    // Saving the form with the masked placeholder keeps the stored secret.
    expect(
      (
        await user.call('PUT', '/api/user/setting', {
          ...webhookSetting,
          webhook_secret: '********',
          quota_warning_threshold: 2000,
        })
      ).body.success,
    ).toBe(true);
    expect(secretIn((await user.call<UserPublic>('GET', '/api/user/self')).body.data!.setting)).toBe(WEBHOOK_SECRET);
  });

  it('stores API token keys sealed deterministically; the owner searches by part of it and reveals it; the relay finds it', async () => {
    const created = await user.call<TokenPublic[]>('POST', '/api/token/', {
      name: 'sealed-token',
      unlimited_quota: true,
    });
    expect(created.body.success).toBe(true);
    const full = created.body.data![0]!.key;
    expect(full).toMatch(/^[A-Za-z0-9]{48}$/);
    const raw = (
      await t.database.db.kysely
        .selectFrom('tokens')
        .select('key')
        .where('id', '=', created.body.data![0]!.id)
        .executeTakeFirstOrThrow()
    ).key;
    expect(raw).toMatch(/^enc:d1:[A-Za-z0-9_-]+$/);
    expect(raw.length).toBeLessThanOrEqual(128);
    expect(raw).not.toContain(full.slice(0, 12));
    expect(t.runtime.ctx.secretBox.sealFixed(full)).toBe(raw);
    const listed = (await user.call<{ items: TokenPublic[] }>('GET', '/api/token/?p=1&size=50')).body.data!.items;
    const masked = `${full.slice(0, 4)}**********${full.slice(-4)}`;
    expect(listed.find((x) => x.name === 'sealed-token')!.key).toBe(masked);
    const found = (
      await user.call<{ items: TokenPublic[]; total: number }>('GET', `/api/token/search?token=sk-${full.slice(5, 20)}`)
    ).body.data!;
    expect(found.items.map((x) => x.key)).toEqual([masked]);
    expect(
      (await user.call<{ key: string }>('POST', `/api/token/${created.body.data![0]!.id}/key`)).body.data!.key,
    ).toBe(full);
    const call = (k: string) =>
      fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await call(`sk-${full}`)).status).toBe(200);
    // The sealed text copied from the database is not a key.
    expect((await call(raw)).status).toBe(401);
    expect((await call(`sk-${raw}`)).status).toBe(401);
    await drainWriter(t);
  });

  it('stores access tokens as keyed digests; the token still signs in', async () => {
    const token = (await user.call<string>('GET', '/api/user/token')).body.data!;
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
    const stored = (await rawUser(t, user.userId!)).access_token!;
    expect(stored).toMatch(/^hmac:v1:[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain(token);
    const byToken = await t.app.inject({
      method: 'GET',
      url: '/api/user/self',
      headers: { authorization: token, 'new-api-user': String(user.userId) },
    });
    expect(byToken.json()).toMatchObject({ success: true, data: { id: user.userId } });
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/api/user/self',
      headers: { authorization: stored, 'new-api-user': String(user.userId) },
    });
    expect(wrong.statusCode).toBe(401);
  });
});

describe.each(dialects)('secrets at rest across restarts on %s', (dialect) => {
  it('without CRYPTO_SECRET stores plaintext as before; with it, seals existing plaintext on start; a missing or wrong one stops start-up', async () => {
    const database = await createTestDatabase(dialect);
    const apps: TestApp[] = [];
    const start = async (env: Record<string, string>) => {
      const app = await startTestApp(dialect, env, database);
      apps.push(app);
      return app;
    };
    try {
      // 1. No CRYPTO_SECRET: plaintext, and admins still see the webhook secret masked.
      let t = await start({});
      let root = await setupRoot(t.app);
      const channelRes = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
        mode: 'single',
        channel: { name: 'legacy', key: CHANNEL_KEY, models: 'm-legacy' },
      });
      const channelId = channelRes.body.data!.ids[0]!;
      expect(
        (await root.call('PUT', '/api/option/', { key: 'SMTPToken', value: optionPlain('SMTPToken') })).body.success,
      ).toBe(true);
      const user = await createUserClient(t.app, root, 'legacy-user');
      expect((await user.call('PUT', '/api/user/setting', webhookSetting)).body.success).toBe(true);
      const token = (await user.call<string>('GET', '/api/user/token')).body.data!;
      const apiToken = (await user.call<TokenPublic[]>('POST', '/api/token/', { name: 'legacy-token' })).body.data![0]!;
      const rawTokenKey = async () =>
        (
          await t.database.db.kysely
            .selectFrom('tokens')
            .select('key')
            .where('id', '=', apiToken.id)
            .executeTakeFirstOrThrow()
        ).key;
      expect(await rawTokenKey()).toBe(apiToken.key);
      // A two-factor secret stored while CRYPTO_SECRET was unset.
      await t.database.db.kysely
        .insertInto('two_factor')
        .values({
          user_id: user.userId!,
          secret: 'JBSWY3DPEHPK3PXP',
          enabled: 1,
          last_used_step: 0,
          created_at: 1,
          enabled_at: 1,
        })
        .execute();
      const rawTwoFactor = async () =>
        (
          await t.database.db.kysely
            .selectFrom('two_factor')
            .select('secret')
            .where('user_id', '=', user.userId!)
            .executeTakeFirstOrThrow()
        ).secret;
      expect(await rawChannelKey(t, channelId)).toBe(CHANNEL_KEY);
      expect(await rawOption(t, 'SMTPToken')).toBe(optionPlain('SMTPToken'));
      expect(secretIn((await rawUser(t, user.userId!)).setting!)).toBe(WEBHOOK_SECRET);
      expect((await rawUser(t, user.userId!)).access_token).toBe(token);
      expect(secretIn((await root.call<UserPublic>('GET', `/api/user/${user.userId}`)).body.data!.setting)).toBe(
        '********',
      );
      expect(secretIn((await user.call<UserPublic>('GET', '/api/user/self')).body.data!.setting)).toBe(WEBHOOK_SECRET);
      await t.close();

      // 2. CRYPTO_SECRET set: every plaintext secret is sealed in place and still works.
      t = await start({ CRYPTO_SECRET });
      const sealedChannel = await rawChannelKey(t, channelId);
      const sealedOption = await rawOption(t, 'SMTPToken');
      const sealedUser = await rawUser(t, user.userId!);
      expect(sealedChannel).toMatch(SEALED);
      expect(sealedOption).toMatch(SEALED);
      expect(secretIn(sealedUser.setting!)).toMatch(SEALED);
      expect(sealedUser.access_token).toMatch(/^hmac:v1:/);
      const sealedTwoFactor = await rawTwoFactor();
      expect(sealedTwoFactor).toMatch(SEALED);
      expect(t.runtime.ctx.secretBox.open(sealedTwoFactor)).toBe('JBSWY3DPEHPK3PXP');
      const sealedTokenKey = await rawTokenKey();
      expect(sealedTokenKey).toMatch(/^enc:d1:/);
      expect((await t.runtime.ctx.relay.tokens.get(apiToken.key))?.tokenId).toBe(apiToken.id);
      expect(t.runtime.ctx.channelCache.get(channelId)!.keys).toEqual([CHANNEL_KEY]);
      expect(t.runtime.ctx.options.get('SMTPToken')).toBe(optionPlain('SMTPToken'));
      expect(warningTarget(await warningUser(t, user.userId!), t.runtime.ctx.options)).toMatchObject({
        secret: WEBHOOK_SECRET,
      });
      const byToken = await t.app.inject({
        method: 'GET',
        url: '/api/user/self',
        headers: { authorization: token, 'new-api-user': String(user.userId) },
      });
      expect(byToken.json()).toMatchObject({ success: true, data: { id: user.userId } });
      root = new Client(t.app);
      expect((await root.login(ROOT.username, ROOT.password)).body.success).toBe(true);
      expect(await revealChannelKey(root, channelId)).toBe(CHANNEL_KEY);
      await t.close();

      // 3. A missing or wrong CRYPTO_SECRET stops start-up with an error naming it; nothing is changed.
      await expect(startTestApp(dialect, {}, database)).rejects.toThrow(/^CRYPTO_SECRET: .*not set/);
      await expect(startTestApp(dialect, { CRYPTO_SECRET: 'some-other-secret' }, database)).rejects.toThrow(
        /^CRYPTO_SECRET: /,
      );

      // 4. The right one again: nothing is sealed twice.
      t = await start({ CRYPTO_SECRET });
      expect(await rawChannelKey(t, channelId)).toBe(sealedChannel);
      expect(await rawOption(t, 'SMTPToken')).toBe(sealedOption);
      expect(await rawUser(t, user.userId!)).toEqual(sealedUser);
      expect(await rawTokenKey()).toBe(sealedTokenKey);
      expect(await rawTwoFactor()).toBe(sealedTwoFactor);
      await t.close();
    } finally {
      for (const a of apps) await a.close().catch(() => undefined);
      await database.drop();
    }
  }, 60_000);
});

describe('file modes', () => {
  it('an existing journal folder is made owner-only on start, and a journal of an earlier version is applied and removed', async () => {
    const database = await createTestDatabase('sqlite');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-journal-'));
    const journalDir = path.join(dataDir, 'journal');
    fs.mkdirSync(journalDir, { mode: 0o755 });
    fs.chmodSync(journalDir, 0o755);
    const legacy = path.join(dataDir, 'writer-journal.jsonl');
    fs.writeFileSync(legacy, '');
    fs.chmodSync(legacy, 0o644);
    try {
      const t = await startTestApp('sqlite', { DATA_DIR: dataDir }, database);
      expect(fs.statSync(journalDir).mode & 0o777).toBe(0o700);
      expect(fs.existsSync(legacy)).toBe(false);
      await t.close();
    } finally {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
