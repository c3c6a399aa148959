import crypto from 'node:crypto';
import type { CustomOAuthProvider } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../src/modules/custom-oauth/backchannel.js';
import { Client, type TestApp } from '../support/app.js';
import { useApp } from '../support/fixture.js';
import { oauthCodeProvider, signInThroughIssuer, startIssuer, type TestIssuer } from '../support/oidc-issuer.js';

/**
 * OpenID Connect back-channel logout: the provider ends a user's sessions there (signed out, disabled, removed) and
 * posts a logout token; the sessions that provider opened here end, the user's other sessions stay. Forged, stale,
 * replayed and foreign tokens change nothing and get the spec's 400.
 */
describe('back-channel logout from a root-defined OpenID provider', () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startIssuer();
  });
  afterAll(async () => issuer?.close());
  let t: TestApp, root: Client, provider: CustomOAuthProvider;
  useApp('sqlite', { env: {} }, async (g) => {
    ({ t, root } = g);
    for (const [key, value] of [
      ['fetch_setting.allow_private_ip', 'true'],
      ['fetch_setting.allowed_ports', JSON.stringify([String(new URL(issuer.url).port)])],
    ])
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
    const created = await root.call<CustomOAuthProvider>(
      'POST',
      '/api/custom-oauth-provider/',
      oauthCodeProvider(issuer, { auto_register: true }),
    );
    expect(created.body.success, created.body.message).toBe(true);
    provider = created.body.data!;
  });

  async function signIn(c: Client) {
    const res = await signInThroughIssuer(c);
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data!;
  }

  const logoutToken = (claims: Record<string, unknown>, opts: { foreignKey?: boolean } = {}) =>
    issuer.sign(
      {
        iss: issuer.url,
        aud: issuer.clientId,
        iat: Math.floor(Date.now() / 1000),
        jti: crypto.randomUUID(),
        events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
        ...claims,
      },
      opts,
    );
  const post = async (token: string, slug = 'acme') => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/oauth/custom/${slug}/backchannel-logout`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ logout_token: token }).toString(),
    });
    return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as Record<string, string>) : {}, res };
  };
  const signedIn = async (c: Client) => (await c.call('GET', '/api/user/self')).body.success;

  it('ends the sessions the provider opened for the user it names, and only those', async () => {
    issuer.users.set('u-dora', { claims: { preferred_username: 'dora', email: 'dora@example.com' } });
    issuer.users.set('u-eve', { claims: { preferred_username: 'eve', email: 'eve@example.com' } });
    issuer.signInAs = 'u-dora';
    const dora = new Client(t.app);
    const doraUser = await signIn(dora);
    const doraLaptop = new Client(t.app);
    await signIn(doraLaptop);
    issuer.signInAs = 'u-eve';
    const eve = new Client(t.app);
    await signIn(eve);
    // Dora also has a password session (set by root), which the provider did not open.
    expect((await root.call('PUT', '/api/user/', { id: doraUser.id, password: 'dora-pass-123' })).body.success).toBe(
      true,
    );
    const byPassword = new Client(t.app);
    expect((await byPassword.login(doraUser.username, 'dora-pass-123')).body.success).toBe(true);

    const token = await logoutToken({ sub: 'u-dora', sid: 'idp-session-1' });
    const done = await post(token);
    expect(done.status).toBe(200);
    expect(done.res.headers['cache-control']).toBe('no-store');
    expect(await signedIn(dora)).toBe(false);
    expect(await signedIn(doraLaptop)).toBe(false);
    expect(await signedIn(byPassword)).toBe(true);
    expect(await signedIn(eve)).toBe(true);

    // The same token again is a replay; a user without an account here is a no-op answered 200.
    expect((await post(token)).status).toBe(400);
    expect((await post(await logoutToken({ sub: 'u-nobody' }))).status).toBe(200);
  });

  it('refuses forged, stale, foreign and malformed tokens without ending anything', async () => {
    issuer.signInAs = 'u-eve';
    const eve = new Client(t.app);
    await signIn(eve);
    const refusals: [string, Promise<string> | string, string?][] = [
      ['a foreign key', logoutToken({ sub: 'u-eve' }, { foreignKey: true })],
      ['another audience', logoutToken({ sub: 'u-eve', aud: 'someone-else' })],
      ['another issuer', logoutToken({ sub: 'u-eve', iss: 'https://evil.example' })],
      ['no logout event', logoutToken({ sub: 'u-eve', events: {} })],
      ['a nonce (an ID token)', logoutToken({ sub: 'u-eve', nonce: 'n-1' })],
      ['issued 10 minutes ago', logoutToken({ sub: 'u-eve', iat: Math.floor(Date.now() / 1000) - 600 })],
      ['no jti', logoutToken({ sub: 'u-eve', jti: undefined })],
      ['only a session id', logoutToken({ sub: undefined, sid: 'idp-session-2' })],
      ['not a JWT', 'not-a-jwt'],
      ['no token', ''],
      ['an unknown provider', logoutToken({ sub: 'u-eve' }), 'nobody'],
    ];
    for (const [what, token, slug] of refusals) {
      const res = await post(await token, slug);
      expect(res.status, what).toBe(400);
      expect(res.body.error, what).toBe('invalid_request');
      expect(res.body.error_description, what).toMatch(/refused/);
    }
    expect(await signedIn(eve)).toBe(true);
    // A disabled provider takes no logout tokens (its sessions ended when it was disabled).
    await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, { enabled: false });
    expect((await post(await logoutToken({ sub: 'u-eve' }))).status).toBe(400);
    await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, { enabled: true });
  });
});
