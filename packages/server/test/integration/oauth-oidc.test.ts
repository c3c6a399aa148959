import { describe, expect, it } from 'vitest';
import { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { MOCK_CLIENTS } from '../support/mock-oauth.js';
import { oauthCallback, oauthState } from '../support/oauth-flow.js';
import { redirectProviderTests, useOAuthApp, type RedirectProviderCase } from '../support/oauth-suite.js';
import { expectRefused } from '../support/refusal.js';

const oidc: RedirectProviderCase = {
  provider: 'oidc',
  label: 'OIDC',
  field: 'oidc_id',
  enabledOption: 'oidc.enabled',
  user: (n) => ({
    sub: `subject-${n}`,
    preferred_username: `pref${n}`,
    name: `Idp Person ${n}`,
    email: `person${n}@idp.test`,
  }),
  idOf: (n) => `subject-${n}`,
  nameOf: (n) => `Idp Person ${n}`,
  emailOf: (n) => `person${n}@idp.test`,
};

describe.each(dialects)('OIDC sign-in on %s', (dialect) => {
  const fx = useOAuthApp(dialect, (mock) => ({
    'oidc.enabled': 'true',
    'oidc.client_id': MOCK_CLIENTS.oidc.id,
    'oidc.client_secret': MOCK_CLIENTS.oidc.secret,
    'oidc.authorization_endpoint': `${mock.url}/oidc/authorize`,
    'oidc.token_endpoint': `${mock.url}/oidc/token`,
    'oidc.user_info_endpoint': `${mock.url}/oidc/userinfo`,
  }));
  redirectProviderTests(fx, oidc);

  it('exchanges the code with grant_type authorization_code and redirect_uri {origin}/oauth/oidc (ServerAddress when set)', async () => {
    const signIn = async (n: number) => {
      const c = new Client(fx.t.app);
      const st = await oauthState(c);
      const code = fx.mock.issueCode('oidc', oidc.user(n));
      expect((await oauthCallback(c, 'oidc', code, st.state, st.cookie)).body.success).toBe(true);
      return code;
    };
    const code = await signIn(60);
    expect(fx.mock.exchanges.at(-1)).toEqual({
      provider: 'oidc',
      fields: {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'http://localhost:80/oauth/oidc',
        client_id: 'oidc-client',
        client_secret: 'oidc-secret',
      },
    });
    await fx.setOption('ServerAddress', 'https://gateway.example.com');
    try {
      await signIn(61);
      expect(fx.mock.exchanges.at(-1)!.fields.redirect_uri).toBe('https://gateway.example.com/oauth/oidc');
    } finally {
      await fx.setOption('ServerAddress', '');
    }
  });

  it('a user with only preferred_username gets it as display name', async () => {
    const c = new Client(fx.t.app);
    const st = await oauthState(c);
    const code = fx.mock.issueCode('oidc', { sub: 'subject-bare', preferred_username: 'bare' });
    expect((await oauthCallback(c, 'oidc', code, st.state, st.cookie)).body).toMatchObject({
      success: true,
      data: { display_name: 'bare', oidc_id: 'subject-bare', email: '' },
    });
  });

  it('without token and user info endpoints the sign-in answers the OIDC configuration message', async () => {
    await fx.setOption('oidc.token_endpoint', '');
    try {
      const c = new Client(fx.t.app);
      const st = await oauthState(c);
      const res = await oauthCallback(c, 'oidc', fx.mock.issueCode('oidc', oidc.user(62)), st.state, st.cookie);
      expect(res.body).toMatchObject({
        success: false,
        message:
          'failed to get OIDC configuration, check network and the Well-Known URL (the administrator has not set the token and user info endpoints)',
      });
    } finally {
      await fx.setOption('oidc.token_endpoint', `${fx.mock.url}/oidc/token`);
    }
  });

  it('an unreachable token endpoint is a clear refusal, not a server error', async () => {
    await fx.setOption('oidc.token_endpoint', 'http://127.0.0.1:1/token');
    try {
      const c = new Client(fx.t.app);
      const st = await oauthState(c);
      const res = await oauthCallback(c, 'oidc', 'any-code', st.state, st.cookie);
      expectRefused(res);
      expect(res.body.success).toBe(false);
      expect(res.body.message).toMatch(/^cannot reach the OIDC provider: /);
    } finally {
      await fx.setOption('oidc.token_endpoint', `${fx.mock.url}/oidc/token`);
    }
  });
});
