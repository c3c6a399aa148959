import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../support/app.js';
import { ROOT } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { enableTwoFactor, TotpClock, type Enabled } from '../support/twofa.js';

const CHANNEL_KEY = 'sk-2fa-upstream-key-0123456789';
/** How long a verification lasts, in ms (five minutes). */
const VERIFIED_FOR_MS = 300_000;

/** With two-factor sign-in on, only a code (or backup code) verifies the session before a channel key is shown. */
describe.each(dialects)('new-api keys: channel key reveal with two-factor sign-in on %s', (dialect) => {
  let root: Client, channelId: number, twoFactor: Enabled;
  const clock = new TotpClock();
  // The clock runs before the app's setup, which enables two-factor sign-in with its codes.
  beforeAll(() => clock.start());
  afterAll(() => clock.stop());
  useApp(dialect, {}, async (app) => {
    ({ root } = app);
    const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'tfa', key: CHANNEL_KEY, models: 'm-2fa', group: ['default'] },
    });
    channelId = res.body.data!.ids[0]!;
    twoFactor = await enableTwoFactor(root, clock);
  });

  const reveal = () => root.call<{ key: string }>('POST', `/api/channel/${channelId}/key`, {});
  const verify = (body: Record<string, unknown>) => root.call<{ verified: boolean }>('POST', '/api/verify', body);

  it('refuses the password, a wrong code and passkeys; a current code verifies the session', async () => {
    expect((await reveal()).body.success).toBe(false);
    expect((await verify({ method: 'password', password: ROOT.password })).body).toMatchObject({
      success: false,
      message: expect.stringContaining('two-factor authentication is on'),
    });
    expect((await verify({ method: '2fa', code: '000000' })).body).toMatchObject({
      success: false,
      message: expect.stringContaining('wrong'),
    });
    expect((await verify({ method: 'passkey' })).body.success).toBe(false);
    expect((await verify({ method: '2fa', code: '' })).body.success).toBe(false);
    expect((await reveal()).body.success).toBe(false);
    expect((await verify({ method: '2fa', code: clock.code(twoFactor.secret) })).body).toMatchObject({
      success: true,
      data: { verified: true },
    });
    expect((await reveal()).body).toMatchObject({ success: true, data: { key: CHANNEL_KEY } });
  });

  it('the verification lasts five minutes; a backup code verifies again', async () => {
    clock.now += VERIFIED_FOR_MS;
    clock.tick();
    expect((await reveal()).body).toMatchObject({
      success: false,
      message: expect.stringContaining('secure verification required'),
    });
    expect((await verify({ method: '2fa', code: twoFactor.backupCodes[0] })).body.success).toBe(true);
    expect((await reveal()).body.data).toEqual({ key: CHANNEL_KEY });
  });
});
