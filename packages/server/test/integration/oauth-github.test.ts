import { describe, expect, it } from 'vitest';
import { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { MOCK_CLIENTS } from '../support/mock-oauth.js';
import { oauthCallback, oauthState } from '../support/oauth-flow.js';
import { redirectProviderTests, useOAuthApp, type RedirectProviderCase } from '../support/oauth-suite.js';

const github: RedirectProviderCase = {
  provider: 'github',
  label: 'GitHub',
  field: 'github_id',
  enabledOption: 'GitHubOAuthEnabled',
  user: (n) => ({ id: 9000 + n, login: `octo${n}`, name: `Octo Cat ${n}`, email: `octo${n}@gh.test` }),
  idOf: (n) => String(9000 + n),
  nameOf: (n) => `Octo Cat ${n}`,
  emailOf: (n) => `octo${n}@gh.test`,
};

describe.each(dialects)('GitHub sign-in on %s', (dialect) => {
  const fx = useOAuthApp(dialect, () => ({
    GitHubOAuthEnabled: 'true',
    GitHubClientId: MOCK_CLIENTS.github.id,
    GitHubClientSecret: MOCK_CLIENTS.github.secret,
  }));
  redirectProviderTests(fx, github);

  it('sends client id, secret and code to GITHUB_BASE_URL; a user without name or email gets the login and no email', async () => {
    const c = new Client(fx.t.app);
    const st = await oauthState(c);
    const code = fx.mock.issueCode('github', { id: 9100, login: 'plainlogin', name: null, email: null });
    const res = await oauthCallback(c, 'github', code, st.state, st.cookie);
    expect(res.body).toMatchObject({
      success: true,
      data: { display_name: 'plainlogin', email: '', github_id: '9100' },
    });
    expect(fx.mock.exchanges.at(-1)).toEqual({
      provider: 'github',
      fields: { client_id: 'gh-client', client_secret: 'gh-secret', code },
    });
  });

  it('an email another user has is not copied to the new user', async () => {
    const alice = fx.users[0]!;
    expect(
      (
        await fx.root.call('PUT', '/api/user/', {
          id: alice.userId,
          username: 'alice',
          display_name: 'alice',
          email: 'taken@gh.test',
        })
      ).body.success,
    ).toBe(true);
    const c = new Client(fx.t.app);
    const st = await oauthState(c);
    const code = fx.mock.issueCode('github', { id: 9101, login: 'copycat', name: 'Copy Cat', email: 'taken@gh.test' });
    const res = await oauthCallback(c, 'github', code, st.state, st.cookie);
    expect(res.body).toMatchObject({ success: true, data: { display_name: 'Copy Cat', email: '' } });
  });

  it('a wrong client secret is refused with the reason and never shows the secret', async () => {
    await fx.setOption('GitHubClientSecret', 'wrong-secret');
    try {
      const c = new Client(fx.t.app);
      const st = await oauthState(c);
      const res = await oauthCallback(c, 'github', fx.mock.issueCode('github', github.user(50)), st.state, st.cookie);
      expect(res.body).toMatchObject({
        success: false,
        message: 'GitHub refused the sign-in code (client authentication failed): start the sign-in again',
      });
    } finally {
      await fx.setOption('GitHubClientSecret', MOCK_CLIENTS.github.secret);
    }
  });
});
