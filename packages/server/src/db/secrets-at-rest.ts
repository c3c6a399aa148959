import { optionDefs } from '@tollway/shared';
import type { Logger } from 'pino';
import { isDigest, isSealed, SecretKeyError, type SecretBox } from '../lib/secret-box.js';
import { openSettingSecret, parseSetting, sealSettingSecret } from '../lib/setting-secret.js';
import type { Db } from './connect.js';

/** Options row holding a sealed known text: proves at start-up that CRYPTO_SECRET is the one the data was sealed with. */
export const SECRET_CHECK_KEY = 'tollway.secret_box_check';
const SECRET_CHECK_TEXT = 'tollway secrets at rest';

const secretOptions = Object.entries(optionDefs)
  .filter(([, def]) => (def as { secret?: boolean }).secret === true)
  .map(([key]) => key);

interface Pending {
  channels: { id: number; from: string; to: string }[];
  options: { key: string; from: string; to: string }[];
  settings: { id: number; from: string; to: string }[];
  accessTokens: { id: number; from: string; to: string }[];
  tokenKeys: { id: number; from: string; to: string }[];
  twoFactor: { id: number; from: string; to: string }[];
}

/**
 * Checks the secrets stored in the database against CRYPTO_SECRET and, when it is set, seals the plaintext ones
 * in place (channel keys, secret options, users' webhook secrets, API token keys deterministically so the relay
 * still finds them by equality, two-factor secrets; access tokens become keyed digests). Every
 * sealed value is opened first, so a missing or wrong CRYPTO_SECRET fails with SecretKeyError before anything
 * is written. Idempotent; each row is only rewritten while it still holds the plaintext that was read.
 */
export async function sealSecretsAtRest(db: Db, box: SecretBox, log: Logger): Promise<number> {
  const k = db.kysely;
  const [channels, tokens, twoFactor, options, users] = await Promise.all([
    k.selectFrom('channels').select(['id', 'key']).execute(),
    k.selectFrom('tokens').select(['id', 'key']).execute(),
    k.selectFrom('two_factor').select(['user_id as id', 'secret']).execute(),
    k
      .selectFrom('options')
      .select(['key', 'value'])
      .where('key', 'in', [...secretOptions, SECRET_CHECK_KEY])
      .execute(),
    k
      .selectFrom('users')
      .select(['id', 'setting', 'access_token'])
      .where((eb) => eb.or([eb('setting', 'like', '%webhook_secret%'), eb('access_token', 'is not', null)]))
      .execute(),
  ]);
  const check = options.find((o) => o.key === SECRET_CHECK_KEY)?.value;
  if (check !== undefined && box.open(check ?? '') !== SECRET_CHECK_TEXT)
    throw new SecretKeyError('the stored check value does not match CRYPTO_SECRET');
  if (!box.enabled && users.some((u) => isDigest(u.access_token))) {
    throw new SecretKeyError(
      'the database holds access-token digests made with CRYPTO_SECRET but it is not set; start with the CRYPTO_SECRET they were made with',
    );
  }
  const pending: Pending = { channels: [], options: [], settings: [], accessTokens: [], tokenKeys: [], twoFactor: [] };
  for (const c of channels) {
    box.open(c.key);
    if (box.enabled && c.key !== '' && !isSealed(c.key))
      pending.channels.push({ id: c.id, from: c.key, to: box.seal(c.key) });
  }
  for (const t of tokens) {
    box.open(t.key);
    if (box.enabled && t.key !== '' && !isSealed(t.key))
      pending.tokenKeys.push({ id: t.id, from: t.key, to: box.sealFixed(t.key) });
  }
  for (const f of twoFactor) {
    box.open(f.secret);
    if (box.enabled && f.secret !== '' && !isSealed(f.secret))
      pending.twoFactor.push({ id: f.id, from: f.secret, to: box.seal(f.secret) });
  }
  for (const o of options) {
    if (o.key === SECRET_CHECK_KEY) continue;
    const value = o.value ?? '';
    box.open(value);
    if (box.enabled && value !== '' && !isSealed(value))
      pending.options.push({ key: o.key, from: value, to: box.seal(value) });
  }
  for (const u of users) {
    const setting = u.setting ?? '';
    openSettingSecret(setting, box);
    const secret = parseSetting(setting).webhook_secret;
    if (box.enabled && typeof secret === 'string' && secret !== '' && !isSealed(secret)) {
      pending.settings.push({ id: u.id, from: setting, to: sealSettingSecret(setting, box) });
    }
    const token = u.access_token;
    if (box.enabled && token && !isDigest(token))
      pending.accessTokens.push({ id: u.id, from: token, to: box.lookupForm(token) });
  }
  if (!box.enabled) return 0;
  const count =
    pending.channels.length +
    pending.options.length +
    pending.settings.length +
    pending.accessTokens.length +
    pending.tokenKeys.length +
    pending.twoFactor.length;
  await k.transaction().execute(async (trx) => {
    for (const c of pending.channels)
      await trx.updateTable('channels').set({ key: c.to }).where('id', '=', c.id).where('key', '=', c.from).execute();
    for (const t of pending.tokenKeys)
      await trx.updateTable('tokens').set({ key: t.to }).where('id', '=', t.id).where('key', '=', t.from).execute();
    for (const f of pending.twoFactor)
      await trx
        .updateTable('two_factor')
        .set({ secret: f.to })
        .where('user_id', '=', f.id)
        .where('secret', '=', f.from)
        .execute();
    for (const o of pending.options)
      await trx
        .updateTable('options')
        .set({ value: o.to })
        .where('key', '=', o.key)
        .where('value', '=', o.from)
        .execute();
    for (const s of pending.settings)
      await trx
        .updateTable('users')
        .set({ setting: s.to })
        .where('id', '=', s.id)
        .where('setting', '=', s.from)
        .execute();
    for (const a of pending.accessTokens) {
      await trx
        .updateTable('users')
        .set({ access_token: a.to })
        .where('id', '=', a.id)
        .where('access_token', '=', a.from)
        .execute();
    }
    if (check === undefined) {
      const row = { key: SECRET_CHECK_KEY, value: box.seal(SECRET_CHECK_TEXT) };
      // Two nodes starting at once both try; either check value is valid.
      if (db.dialect === 'mysql') await trx.insertInto('options').ignore().values(row).execute();
      else
        await trx
          .insertInto('options')
          .values(row)
          .onConflict((oc) => oc.column('key').doNothing())
          .execute();
    }
  });
  if (count > 0)
    log.info(
      {
        channels: pending.channels.length,
        options: pending.options.length,
        webhookSecrets: pending.settings.length,
        accessTokens: pending.accessTokens.length,
        tokenKeys: pending.tokenKeys.length,
        twoFactorSecrets: pending.twoFactor.length,
      },
      'secrets at rest: sealed plaintext values with CRYPTO_SECRET',
    );
  return count;
}
