import http from 'node:http';
import { ErrorCode, type CustomOAuthProvider, type UserPublic } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, type CallResult, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, setQuota } from '../support/gateway.js';
import { oauthCallback, oauthState, setCookies } from '../support/oauth-flow.js';
import { listenLocally } from '../support/local-server.js';
import { signInThroughIssuer, startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { FIXED_MODEL, openaiCall } from '../support/period-limits.js';

interface Discovery {
  well_known_url: string;
  discovery: Record<string, string>;
}

/**
 * Root-defined sign-in providers against an OpenID issuer of the tests' own: discovery through the outbound guard,
 * code + PKCE + nonce sign-in, ID token checks, claim → group mapping followed by the relay, external JWT and
 * trusted-header sign-in; on every database (the provider's id comes from RETURNING, or insertId on MySQL).
 */
describe.each(dialects)('root-defined sign-in providers (%s)', (dialect) => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startIssuer();
  });
  afterAll(async () => issuer?.close());
  let t: TestApp, root: Client, base: string;
  useGateway(dialect, { env: { CRYPTO_SECRET: 'custom-oauth-test-secret-0042' } }, async (g) => {
    ({ t, root, base } = g);
    for (const [key, value] of [
      ['GroupRatio', JSON.stringify({ default: 1, vip: 1, staff: 1 })],
      ['ModelPrice', JSON.stringify({ [FIXED_MODEL]: 0.001 })],
      ['fetch_setting.allow_private_ip', 'true'],
      ['fetch_setting.allowed_ports', JSON.stringify([String(new URL(issuer.url).port)])],
    ])
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
    // The model is served to the vip group only: a relay call follows the user's group.
    await addChannel(root, { name: 'vip-only', key: 'k', baseUrl: g.mock.url, models: FIXED_MODEL, group: 'vip' });
  });

  let provider: CustomOAuthProvider;

  /** The browser's trip: authorize URL from the server, the issuer's redirect, the console's callback call. */
  const signIn = signInThroughIssuer;
  const userOf = (res: CallResult<UserPublic>) => {
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data!;
  };
  const groupOf = async (id: number) => (await root.call<{ group: string }>('GET', `/api/user/${id}`)).body.data!.group;

  it('fills a provider in by discovery through the outbound guard and keeps the client secret to itself', async () => {
    const found = await root.call<Discovery>('POST', '/api/custom-oauth-provider/discovery', {
      issuer_url: issuer.url,
    });
    expect(found.body.success, found.body.message).toBe(true);
    const doc = found.body.data!.discovery;
    expect(found.body.data!.well_known_url).toBe(`${issuer.url}/.well-known/openid-configuration`);
    expect(doc.token_endpoint).toBe(`${issuer.url}/token`);
    const created = await root.call<CustomOAuthProvider>('POST', '/api/custom-oauth-provider/', {
      name: 'Acme SSO',
      slug: 'acme',
      kind: 'oauth_code',
      enabled: true,
      client_id: issuer.clientId,
      client_secret: issuer.clientSecret,
      authorization_endpoint: doc.authorization_endpoint,
      token_endpoint: doc.token_endpoint,
      user_info_endpoint: doc.userinfo_endpoint,
      jwks_url: doc.jwks_uri,
      issuer: doc.issuer,
      well_known: found.body.data!.well_known_url,
      scopes: 'openid profile email',
      group_field: 'groups',
      group_mapping: JSON.stringify({ engineering: 'vip', sales: 'default', ghosts: 'no-such-group' }),
      role_field: 'roles',
      role_mapping: JSON.stringify({ leads: 'admin' }),
      sync_group_on_login: true,
      sync_role_on_login: true,
      auto_register: true,
    });
    expect(created.body.success, created.body.message).toBe(true);
    provider = created.body.data!;
    expect(provider).toMatchObject({ slug: 'acme', has_client_secret: true, auth_style: 0 });
    expect(JSON.stringify(created.body)).not.toContain(issuer.clientSecret);
    const listed = await root.call('GET', '/api/custom-oauth-provider/');
    expect(JSON.stringify(listed.body)).not.toContain(issuer.clientSecret);
    // Sealed at rest with CRYPTO_SECRET.
    const row = await t.database.db.kysely
      .selectFrom('custom_oauth_providers')
      .select('client_secret')
      .executeTakeFirstOrThrow();
    expect(row.client_secret).toMatch(/^enc:/);
    expect(t.runtime.ctx.secretBox.open(row.client_secret)).toBe(issuer.clientSecret);
    // The login page learns of it; a reserved or taken slug and a root role mapping are refused.
    const status = await new Client(t.app).call<{ custom_oauth_providers: { slug: string; client_id: string }[] }>(
      'GET',
      '/api/status',
    );
    expect(status.body.data!.custom_oauth_providers).toEqual([
      expect.objectContaining({ slug: 'acme', client_id: issuer.clientId, browser_login_supported: true }),
    ]);
    for (const [body, code] of [
      [{ slug: 'github' }, ErrorCode.CustomOAuthSlugReserved],
      [{ slug: 'acme' }, ErrorCode.CustomOAuthSlugTaken],
      [{ slug: 'other', role_mapping: '{"x":"root"}' }, ErrorCode.CustomOAuthInvalid],
    ] as const) {
      const res = await root.call('POST', '/api/custom-oauth-provider/', {
        ...provider,
        client_secret: 'x',
        ...body,
      });
      expect((res.body as { code?: string }).code, JSON.stringify(body)).toBe(code);
    }
  });

  it('signs a new user in by code + PKCE, maps the groups claim to a group, and the relay follows it', async () => {
    issuer.users.set('u-alice', {
      claims: { preferred_username: 'alice', name: 'Alice', email: 'alice@example.com', groups: ['engineering'] },
    });
    issuer.signInAs = 'u-alice';
    const browser = new Client(t.app);
    const alice = userOf(await signIn(browser));
    expect(alice).toMatchObject({ username: 'alice', display_name: 'Alice' });
    // PKCE: the token endpoint got the verifier of the S256 challenge, and the client secret in the form.
    expect(issuer.lastTokenRequest!.form.get('code_verifier')).toMatch(/^[\w-]{43}$/);
    expect(issuer.lastTokenRequest!.form.get('client_secret')).toBe(issuer.clientSecret);
    expect(await groupOf(alice.id)).toBe('vip');
    const me = await browser.call<{ provider_id: number; provider_user_id: string }[]>(
      'GET',
      '/api/user/oauth/bindings',
    );
    expect(me.body.data).toEqual([expect.objectContaining({ provider_id: provider.id, provider_user_id: 'u-alice' })]);

    await setQuota(root, alice.id, 100_000_000);
    const key = (await addToken(t, alice.id)).key;
    expect((await openaiCall(base, key)).status).toBe(200);

    // The claim changes at the provider; the next sign-in moves the user, and the relay refuses the vip model.
    issuer.users.get('u-alice')!.claims.groups = ['sales'];
    expect(userOf(await signIn(new Client(t.app))).id).toBe(alice.id);
    expect(await groupOf(alice.id)).toBe('default');
    expect((await openaiCall(base, key)).status).not.toBe(200);
    // A value mapped to a group that does not exist changes nothing; an explicit role entry makes an admin.
    issuer.users.get('u-alice')!.claims = {
      ...issuer.users.get('u-alice')!.claims,
      groups: ['ghosts'],
      roles: ['leads'],
    };
    expect(userOf(await signIn(new Client(t.app))).role).toBe(10);
    expect(await groupOf(alice.id)).toBe('default');
    // And back: a role the table maps to common lowers the administrator at the next sign-in.
    const mapping = JSON.stringify({ leads: 'admin', members: 'common' });
    expect(
      (await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, { role_mapping: mapping })).body.success,
    ).toBe(true);
    issuer.users.get('u-alice')!.claims.roles = ['members'];
    expect(userOf(await signIn(new Client(t.app))).role).toBe(1);
  });

  it("works from new-api's own console, which builds the authorization URL itself from /api/status and /api/oauth/state", async () => {
    issuer.users.set('u-judy', { claims: { preferred_username: 'judy' } });
    issuer.signInAs = 'u-judy';
    const browser = new Client(t.app);
    const { state, cookie } = await oauthState(browser);
    const entry = (
      await browser.call<{
        custom_oauth_providers: { slug: string; authorization_endpoint: string; client_id: string; scopes: string }[];
      }>('GET', '/api/status')
    ).body.data!.custom_oauth_providers.find((p) => p.slug === 'acme')!;
    const url = new URL(entry.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: entry.client_id,
      redirect_uri: 'http://localhost:80/oauth/acme',
      scope: entry.scopes,
      state,
    }).toString();
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    const res = await oauthCallback(browser, 'acme', back.searchParams.get('code')!, state, cookie);
    expect(userOf(res).username).toBe('judy');
    expect(issuer.lastTokenRequest!.form.get('code_verifier')).toBeNull();
  });

  it('refuses a bad state, a wrong nonce, a bad PKCE verifier, a foreign signature and a disabled provider', async () => {
    issuer.users.set('u-bob', { claims: { preferred_username: 'bob', groups: [] } });
    issuer.signInAs = 'u-bob';
    const code = (res: CallResult) => (res.body as { code?: string }).code;
    expect(code(await signIn(new Client(t.app), 'acme', (c) => [c, 'forged-state']))).toBe(ErrorCode.OAuthStateInvalid);

    issuer.tamper = { nonce: 'someone-elses-nonce' };
    expect(code(await signIn(new Client(t.app)))).toBe(ErrorCode.CustomOAuthNonceMismatch);
    issuer.tamper = { foreignKey: true };
    expect(code(await signIn(new Client(t.app)))).toBe(ErrorCode.CustomOAuthIdTokenInvalid);
    issuer.tamper = { audience: 'another-client' };
    expect(code(await signIn(new Client(t.app)))).toBe(ErrorCode.CustomOAuthIdTokenInvalid);
    issuer.tamper = {};

    // The code exchanged without the browser's verifier (another browser's state cookie) is refused by the issuer.
    const thief = new Client(t.app);
    const stolen = await thief.call<{ url: string }>('GET', '/api/oauth/custom/acme/authorize');
    const thiefCookie = setCookies(stolen)
      .find((h) => h.startsWith('oauth_state='))!
      .split(';')[0]!;
    const victim = await new Client(t.app).call<{ url: string }>('GET', '/api/oauth/custom/acme/authorize');
    const back = new URL((await fetch(victim.body.data!.url, { redirect: 'manual' })).headers.get('location')!);
    const thiefState = new URL(stolen.body.data!.url).searchParams.get('state')!;
    const swapped = await oauthCallback(thief, 'acme', back.searchParams.get('code')!, thiefState, thiefCookie);
    expect(code(swapped)).toBe(ErrorCode.OAuthCodeRefused);
    expect(issuer.lastTokenRequest!.form.get('code_verifier')).toBeTruthy();

    // A user the provider disabled gets no code; a provider root disabled signs nobody in.
    issuer.users.get('u-bob')!.disabled = true;
    expect((await signIn(new Client(t.app))).body.success).toBe(false);
    issuer.users.get('u-bob')!.disabled = false;
    expect((await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, { enabled: false })).body.success).toBe(
      true,
    );
    const off = await new Client(t.app).call('GET', '/api/oauth/custom/acme/authorize');
    expect(code(off)).toBe(ErrorCode.CustomOAuthDisabled);
    expect((await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, { enabled: true })).body.success).toBe(
      true,
    );
  });

  it('binds from a signed-in console, merges by email when asked, and creates no user unless allowed', async () => {
    // A bind: the signed-in console starts the sign-in (session + New-Api-User), the account joins that user.
    const frank = await createUserClient(t.app, root, 'frank');
    issuer.users.set('u-frank', { claims: { preferred_username: 'frank-idp', groups: ['sales'] } });
    issuer.signInAs = 'u-frank';
    const bound = await signIn(frank);
    expect(bound.body).toMatchObject({ success: true, message: 'bind' });
    const viaProvider = new Client(t.app);
    expect(userOf(await signIn(viaProvider)).id).toBe(frank.userId);
    // An administrator sees and releases the binding (frank has an email address, so it is not his only way in):
    // the session the provider opened ends, the password one stays.
    expect((await root.call('PUT', '/api/user/', { id: frank.userId, email: 'frank@example.com' })).body.success).toBe(
      true,
    );
    const listed = await root.call<{ provider_id: number }[]>('GET', `/api/user/${frank.userId}/oauth/bindings`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ provider_id: provider.id, provider_user_id: 'u-frank' }),
    ]);
    expect((await root.call('DELETE', `/api/user/${frank.userId}/oauth/bindings/${provider.id}`)).body.success).toBe(
      true,
    );
    expect((await viaProvider.call('GET', '/api/user/self')).body.success).toBe(false);
    expect((await frank.call('GET', '/api/user/self')).body.success).toBe(true);

    // Without auto_register and without a binding, nobody is created; with merge by email the owner of the
    // (verified) address is found; a provider saying the address is unverified merges nothing.
    const off = await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, {
      auto_register: false,
      auto_merge_by_email: true,
    });
    expect(off.body.success, off.body.message).toBe(true);
    issuer.users.set('u-nobody', { claims: { email: 'nobody@example.com' } });
    issuer.signInAs = 'u-nobody';
    expect(((await signIn(new Client(t.app))).body as { code?: string }).code).toBe(ErrorCode.CustomOAuthNoAccount);
    const hana = await createUserClient(t.app, root, 'hana');
    expect((await root.call('PUT', '/api/user/', { id: hana.userId, email: 'hana@example.com' })).body.success).toBe(
      true,
    );
    issuer.users.set('u-hana', { claims: { email: 'hana@example.com', email_verified: false } });
    issuer.signInAs = 'u-hana';
    expect(((await signIn(new Client(t.app))).body as { code?: string }).code).toBe(ErrorCode.CustomOAuthNoAccount);
    issuer.users.get('u-hana')!.claims.email_verified = true;
    expect(userOf(await signIn(new Client(t.app))).id).toBe(hana.userId);
    // An administrator's address never merges.
    const ivan = await createUserClient(t.app, root, 'ivan', 10);
    expect((await root.call('PUT', '/api/user/', { id: ivan.userId, email: 'ivan@example.com' })).body.success).toBe(
      true,
    );
    issuer.users.set('u-ivan', { claims: { email: 'ivan@example.com', email_verified: true } });
    issuer.signInAs = 'u-ivan';
    expect(((await signIn(new Client(t.app))).body as { code?: string }).code).toBe(ErrorCode.CustomOAuthNoAccount);

    // The provider's own refusal comes back as the sign-in's reason.
    const start = await new Client(t.app).call<{ url: string }>('GET', '/api/oauth/custom/acme/authorize');
    const cookie = setCookies(start)
      .find((h) => h.startsWith('oauth_state='))!
      .split(';')[0]!;
    const state = new URL(start.body.data!.url).searchParams.get('state')!;
    const refused = new Client(t.app);
    refused.cookie = cookie;
    const q = new URLSearchParams({ state, error: 'access_denied', error_description: 'user is disabled' });
    expect((await refused.call('GET', `/api/oauth/acme?${q}`)).body).toMatchObject({
      success: false,
      code: ErrorCode.OAuthCodeRefused,
      params: { reason: 'user is disabled' },
    });
    await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, {
      auto_register: true,
      auto_merge_by_email: false,
    });
  });

  it('ends the sessions a provider opened when its binding is released or the provider is disabled', async () => {
    issuer.users.set('u-carol', { claims: { preferred_username: 'carol', email: 'carol@example.com' } });
    issuer.signInAs = 'u-carol';
    const carol = new Client(t.app);
    const user = userOf(await signIn(carol));
    expect((await carol.call('GET', '/api/user/self')).body.success).toBe(true);
    // Carol has an email address, so the binding is not her only way in.
    const released = await carol.call('DELETE', `/api/user/oauth/bindings/${provider.id}`);
    expect(released.body.success, released.body.message).toBe(true);
    expect((await carol.call('GET', '/api/user/self')).body.success).toBe(false);
    // The provider's account is free again: signing in with it now makes a new user (no email merge configured).
    const again = new Client(t.app);
    const second = userOf(await signIn(again));
    expect(second.id).not.toBe(user.id);
    await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, { enabled: false });
    expect((await again.call('GET', '/api/user/self')).body.success).toBe(false);
    await root.call('PUT', `/api/custom-oauth-provider/${provider.id}`, { enabled: true });
  });

  it('signs in with an external JWT: a good one, then expired, wrong audience and foreign key refused', async () => {
    const created = await root.call<CustomOAuthProvider>('POST', '/api/custom-oauth-provider/', {
      name: 'Portal JWT',
      slug: 'portal',
      kind: 'jwt_direct',
      enabled: true,
      issuer: issuer.url,
      audience: 'tollway',
      jwks_url: `${issuer.url}/jwks`,
      auto_register: true,
      group_field: 'dept',
      group_mapping: JSON.stringify({ ops: 'staff' }),
    });
    expect(created.body.success, created.body.message).toBe(true);
    const login = (token: string) =>
      new Client(t.app).call<UserPublic>('POST', '/api/auth/external/portal/jwt/login', { token });
    const good = await login(
      await issuer.sign({ sub: 'emp-7', aud: 'tollway', preferred_username: 'dave', dept: 'ops' }),
    );
    expect(good.body.success, good.body.message).toBe(true);
    expect(await groupOf(good.body.data!.id)).toBe('staff');
    const reason = async (token: string) =>
      (await login(token)).body as { code?: string; params?: { reason?: string } };
    expect(await reason(await issuer.sign({ sub: 'emp-7', aud: 'tollway' }, { expiresIn: '-10m' }))).toMatchObject({
      code: ErrorCode.CustomOAuthJwtInvalid,
      params: { reason: 'it has expired' },
    });
    expect(await reason(await issuer.sign({ sub: 'emp-7', aud: 'someone-else' }))).toMatchObject({
      code: ErrorCode.CustomOAuthJwtInvalid,
      params: { reason: expect.stringContaining('aud') },
    });
    expect(await reason(await issuer.sign({ sub: 'emp-7', aud: 'tollway' }, { foreignKey: true }))).toMatchObject({
      code: ErrorCode.CustomOAuthJwtInvalid,
    });
    // new-api's access policy refuses with root's message.
    const policy = { conditions: [{ field: 'dept', op: 'eq', value: 'ops' }] };
    const changed = await root.call('PUT', `/api/custom-oauth-provider/${created.body.data!.id}`, {
      access_policy: JSON.stringify(policy),
      access_denied_message: 'only {{required}} may enter, not {{current}}',
    });
    expect(changed.body.success, changed.body.message).toBe(true);
    expect((await login(await issuer.sign({ sub: 'emp-8', aud: 'tollway', dept: 'sales' }))).body).toMatchObject({
      success: false,
      code: ErrorCode.CustomOAuthAccessDenied,
      message: 'only ops may enter, not sales',
    });
    // The header sign-in of this provider does not exist: kinds do not mix.
    expect(
      ((await new Client(t.app).call('POST', '/api/auth/external/portal/header/login')).body as { code?: string }).code,
    ).toBe(ErrorCode.CustomOAuthDisabled);
  });

  it("takes new-api's tickets: a JWT from the ticket server (ticket_exchange) or its CAS answer (ticket_validate)", async () => {
    const seen: URL[] = [];
    const tickets = await listenLocally(
      http.createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        seen.push(url);
        const ticket = url.searchParams.get('ticket');
        if (url.pathname === '/exchange' && ticket === 'ST-good')
          return void issuer
            .sign({ sub: 'emp-ticket', aud: 'tollway', preferred_username: 'tina' })
            .then((token) =>
              res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { token } })),
            );
        if (url.pathname === '/validate' && ticket === 'ST-cas')
          return void res
            .writeHead(200, { 'content-type': 'application/xml' })
            .end(
              '<cas:serviceResponse xmlns:cas="http://www.yale.edu/tp/cas"><cas:authenticationSuccess>' +
                '<cas:user>cas-user</cas:user><cas:attributes><cas:mail>cas&amp;user@example.com</cas:mail>' +
                '<cas:memberOf>sales</cas:memberOf><cas:memberOf>engineering</cas:memberOf></cas:attributes>' +
                '</cas:authenticationSuccess></cas:serviceResponse>',
            );
        res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            '<cas:serviceResponse xmlns:cas="http://www.yale.edu/tp/cas"><cas:authenticationFailure code="INVALID_TICKET">' +
              'Ticket not recognized</cas:authenticationFailure></cas:serviceResponse>',
          );
      }),
    );
    try {
      const exchange = await root.call('POST', '/api/custom-oauth-provider/', {
        name: 'Ticket exchange',
        slug: 'ticketx',
        kind: 'jwt_direct',
        enabled: true,
        jwt_acquire_mode: 'ticket_exchange',
        ticket_exchange_url: `${tickets.url}/exchange`,
        ticket_exchange_service_field: 'service',
        issuer: issuer.url,
        audience: 'tollway',
        jwks_url: `${issuer.url}/jwks`,
        auto_register: true,
      });
      expect(exchange.body.success, exchange.body.message).toBe(true);
      const viaExchange = await new Client(t.app).call<UserPublic>('POST', '/api/auth/external/ticketx/jwt/login', {
        ticket: 'ST-good',
        callback_url: 'https://gw.example/oauth/ticketx',
      });
      expect(viaExchange.body.success, viaExchange.body.message).toBe(true);
      expect(viaExchange.body.data!.username).toBe('tina');
      expect(seen.at(-1)!.searchParams.get('service')).toBe('https://gw.example/oauth/ticketx');

      const cas = await root.call('POST', '/api/custom-oauth-provider/', {
        name: 'CAS',
        slug: 'cas',
        kind: 'jwt_direct',
        enabled: true,
        jwt_acquire_mode: 'ticket_validate',
        ticket_exchange_url: `${tickets.url}/validate`,
        user_id_field: 'authenticationSuccess.user',
        username_field: 'authenticationSuccess.user',
        email_field: 'authenticationSuccess.attributes.mail',
        group_field: 'authenticationSuccess.attributes.memberOf',
        group_mapping: JSON.stringify({ engineering: 'vip' }),
        auto_register: true,
      });
      expect(cas.body.success, cas.body.message).toBe(true);
      const login = (ticket: string) =>
        new Client(t.app).call<UserPublic>('POST', '/api/auth/external/cas/jwt/login', { ticket });
      const viaCas = await login('ST-cas');
      expect(viaCas.body.success, viaCas.body.message).toBe(true);
      expect(viaCas.body.data).toMatchObject({ username: 'cas-user', email: 'cas&user@example.com' });
      expect(await groupOf(viaCas.body.data!.id)).toBe('vip');
      expect((await login('ST-forged')).body).toMatchObject({
        success: false,
        code: ErrorCode.CustomOAuthJwtInvalid,
        params: { reason: 'ticket validation failed: INVALID_TICKET: Ticket not recognized' },
      });
      // Multipart payloads are not offered.
      const multipart = await root.call('POST', '/api/custom-oauth-provider/', {
        name: 'Multipart',
        slug: 'multipart',
        kind: 'jwt_direct',
        jwt_acquire_mode: 'ticket_validate',
        ticket_exchange_url: `${tickets.url}/validate`,
        ticket_exchange_method: 'POST',
        ticket_exchange_payload_mode: 'multipart',
      });
      expect((multipart.body as { code?: string }).code).toBe(ErrorCode.CustomOAuthTicketUnsupported);
    } finally {
      await tickets.close();
    }
  });

  it('trusts identity headers only from a trusted proxy address (the socket, not X-Forwarded-For)', async () => {
    const created = await root.call<CustomOAuthProvider>('POST', '/api/custom-oauth-provider/', {
      name: 'Proxy',
      slug: 'proxy',
      kind: 'trusted_header',
      enabled: true,
      trusted_proxy_cidrs: JSON.stringify(['10.0.0.0/8']),
      external_id_header: 'X-Remote-User',
      email_header: 'X-Remote-Email',
      group_header: 'X-Remote-Groups',
      group_mapping: JSON.stringify({ engineering: 'vip' }),
      auto_register: true,
    });
    expect(created.body.success, created.body.message).toBe(true);
    const id = created.body.data!.id;
    const post = (headers: Record<string, string> | [string, string][]) =>
      fetch(`${base}/api/auth/external/proxy/header/login`, { method: 'POST', headers });
    // The test server listens on 127.0.0.1, outside 10.0.0.0/8: refused whatever X-Forwarded-For claims.
    const untrusted = await post({ 'x-remote-user': 'erin', 'x-forwarded-for': '10.1.2.3' });
    expect(await untrusted.json()).toMatchObject({ success: false, code: ErrorCode.CustomOAuthUntrustedSource });
    await root.call('PUT', `/api/custom-oauth-provider/${id}`, { trusted_proxy_cidrs: '["127.0.0.1/32"]' });
    const trusted = await post({ 'x-remote-user': 'erin', 'x-remote-groups': 'sales,engineering' });
    const body = (await trusted.json()) as { success: boolean; message: string; data: UserPublic };
    expect(body.success, body.message).toBe(true);
    expect(trusted.headers.get('set-cookie')).toMatch(/^session=/);
    expect(await groupOf(body.data.id)).toBe('vip');
    // Two header lines (the raw request), or two values folded into one line by the client, are refused.
    const twoLines = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${base}/api/auth/external/proxy/header/login`, { method: 'POST' }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      });
      req.setHeader('x-remote-user', ['erin', 'mallory']);
      req.on('error', reject);
      req.end();
    });
    expect(JSON.parse(twoLines)).toMatchObject({ success: false, code: ErrorCode.CustomOAuthHeaderDuplicate });
    const folded = await post([
      ['x-remote-user', 'erin'],
      ['x-remote-user', 'mallory'],
    ]);
    expect(await folded.json()).toMatchObject({ success: false, code: ErrorCode.CustomOAuthHeaderDuplicate });
    expect(await (await post({})).json()).toMatchObject({ success: false, code: ErrorCode.CustomOAuthHeaderMissing });
  });

  it('deletes a provider with its bindings', async () => {
    const res = await root.call('DELETE', `/api/custom-oauth-provider/${provider.id}`);
    expect(res.body.success, res.body.message).toBe(true);
    const left = await t.database.db.kysely
      .selectFrom('user_oauth_bindings')
      .select('id')
      .where('provider_id', '=', provider.id)
      .execute();
    expect(left).toEqual([]);
    expect(((await root.call('GET', `/api/custom-oauth-provider/${provider.id}`)).body as { code?: string }).code).toBe(
      ErrorCode.CustomOAuthNotFound,
    );
  });
});
