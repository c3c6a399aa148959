import { describe, expect, it } from 'vitest';
import { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { MOCK_CLIENTS } from '../support/mock-oauth.js';
import { oauthCallback, oauthState } from '../support/oauth-flow.js';
import { redirectProviderTests, useOAuthApp, type RedirectProviderCase } from '../support/oauth-suite.js';
import { expectRefused } from '../support/refusal.js';

const user = (n: number, extra: Record<string, unknown> = {}) => ({
  id: 7000 + n,
  username: `forum${n}`,
  name: `Forum Member ${n}`,
  trust_level: 2,
  active: true,
  silenced: false,
  ...extra,
});

const linuxdo: RedirectProviderCase = {
  provider: 'linuxdo',
  label: 'LinuxDO',
  field: 'linux_do_id',
  enabledOption: 'LinuxDOOAuthEnabled',
  user: (n) => user(n),
  idOf: (n) => String(7000 + n),
  nameOf: (n) => `Forum Member ${n}`,
  emailOf: () => '',
};

describe.each(dialects)('LinuxDO sign-in on %s', (dialect) => {
  const fx = useOAuthApp(dialect, () => ({
    LinuxDOOAuthEnabled: 'true',
    LinuxDOClientId: MOCK_CLIENTS.linuxdo.id,
    LinuxDOClientSecret: MOCK_CLIENTS.linuxdo.secret,
    LinuxDOMinimumTrustLevel: '1',
  }));
  redirectProviderTests(fx, linuxdo);

  const signIn = async (profile: Record<string, unknown>) => {
    const c = new Client(fx.t.app);
    const st = await oauthState(c);
    return oauthCallback(c, 'linuxdo', fx.mock.issueCode('linuxdo', profile), st.state, st.cookie);
  };

  it('sends the client as HTTP Basic to LINUXDO_BASE_URL with redirect_uri {origin}/oauth/linuxdo', async () => {
    expect((await signIn(user(70))).body.success).toBe(true);
    expect(fx.mock.exchanges.at(-1)).toMatchObject({
      provider: 'linuxdo',
      fields: { grant_type: 'authorization_code', redirect_uri: 'http://localhost:80/oauth/linuxdo' },
    });
  });

  it('refuses a trust level below LinuxDOMinimumTrustLevel and accepts it at the minimum', async () => {
    await fx.setOption('LinuxDOMinimumTrustLevel', '3');
    try {
      const low = await signIn(user(71, { trust_level: 2 }));
      expectRefused(low);
      expect(low.body).toMatchObject({
        success: false,
        message: "this LinuxDO account's trust level is 2; the administrator requires at least 3",
      });
      expect((await signIn(user(71, { trust_level: 3 }))).body).toMatchObject({
        success: true,
        data: { linux_do_id: '7071' },
      });
    } finally {
      await fx.setOption('LinuxDOMinimumTrustLevel', '1');
    }
  });

  it('refuses inactive and silenced accounts', async () => {
    expect((await signIn(user(72, { active: false }))).body).toMatchObject({
      success: false,
      message: 'this LinuxDO account is not active',
    });
    expect((await signIn(user(73, { silenced: true }))).body).toMatchObject({
      success: false,
      message: 'this LinuxDO account is silenced',
    });
    const rows = await fx.t.database.db.kysely
      .selectFrom('users')
      .select('id')
      .where('linux_do_id', 'in', ['7072', '7073'])
      .execute();
    expect(rows).toEqual([]);
  });
});
