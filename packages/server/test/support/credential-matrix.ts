import { expect } from 'vitest';
import { GITHUB } from '../../src/modules/oauth/account.js';
import { OAuthStore } from '../../src/modules/oauth/store.js';
import { Client, type TestApp } from './app.js';
import { addToken } from './gateway.js';
import { MOCK_CLIENTS, type MockOAuth } from './mock-oauth.js';
import type { MockSmtp } from './mock-smtp.js';
import { oauthCallback, oauthState } from './oauth-flow.js';
import { enableTwoFactor, secondStep, type Challenge, type TotpClock } from './twofa.js';
import { SoftAuthenticator } from './webauthn.js';

/** Whether a credential still lets its holder in after an event. */
export type Outcome = 'works' | 'ends';

/** What each credential kind of the user does after an event (2FA: whether the enrolment still exists). */
export interface Effects {
  /** The console session that made the event happen (for an administrator's action, one the user had). */
  thisSession: Outcome;
  /** Another console session of the user (another browser), probed on the other node. */
  otherSessions: Outcome;
  accessToken: Outcome;
  /** An `sk-` API key (relay), cached by the probing node before the event. */
  apiKey: Outcome;
  /** Signing in by the user's bound GitHub account. */
  oauthBinding: Outcome;
  /** Signing in with the user's passkey (registered from their session). */
  passkey: Outcome;
  /** A console session that was opened by that GitHub account (origin oauth:github), on the probing node. */
  identitySession: Outcome;
  twoFactor: 'on' | 'off';
  /** Admin-only routes by the user's remaining session and access token (only for a user who was an administrator). */
  adminPowers?: Outcome;
}

/** The cluster under test: the event happens on `act`, every credential is then tried on `probe`. */
export interface MatrixNodes {
  act: TestApp;
  probe: TestApp;
  rootAct: Client;
  rootProbe: Client;
  mock: MockOAuth;
  smtp: MockSmtp;
  clock: TotpClock;
}

/** A user holding one of every credential kind. */
export interface Subject {
  id: number;
  name: string;
  password: string;
  email: string;
  /** Its session on the acting node (the one that acts on its own behalf). */
  session: Client;
  /** That session's cookie as it was before the event (the client may be given a new one or have it cleared). */
  sessionCookie: string;
  /** A second session, signed in on the probing node. */
  other: Client;
  /** A session signed in by the bound GitHub account, on the probing node. */
  viaGithub: Client;
  accessToken: string;
  apiKey: string;
  /** An `sk-` key of an organization the user owns, held by the user (an organization token). */
  orgKey: string;
  githubId: number;
  passkey: SoftAuthenticator;
  secret?: string;
}

export const PASSWORD = 'matrix-pass-123';
export const NEW_PASSWORD = 'matrix-pass-456';
const ADMIN = 10;

/** ServerAddress: mailed links, and the passkeys' origin (their RP id is its host). */
const MATRIX_ORIGIN = 'https://gw.example.test';

/** The options every node needs: GitHub sign-in at the mock, mail through the mock SMTP, links on ServerAddress. */
export async function configureMatrix(nodes: MatrixNodes): Promise<void> {
  const { smtp } = nodes;
  const options: Record<string, string> = {
    GitHubOAuthEnabled: 'true',
    GitHubClientId: MOCK_CLIENTS.github.id,
    GitHubClientSecret: MOCK_CLIENTS.github.secret,
    SMTPServer: smtp.host,
    SMTPPort: String(smtp.port),
    SMTPAccount: smtp.user,
    SMTPToken: smtp.pass,
    ServerAddress: MATRIX_ORIGIN,
    'passkey.enabled': 'true',
    // Sign-in by an unbound account would create a user: a refused binding must not look like a working one.
    RegisterEnabled: 'false',
  };
  // Saved on each node, so neither depends on how fast the other hears of it.
  for (const root of new Set([nodes.rootAct, nodes.rootProbe])) {
    for (const [key, value] of Object.entries(options))
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
  }
}

/** Signs `name` in on `app`, through the second step when 2FA is on. */
async function signIn(
  app: TestApp,
  name: string,
  password: string,
  clock: TotpClock,
  secret?: string,
): Promise<Client> {
  const c = new Client(app.app);
  const res = await c.call<Challenge & { id: number }>('POST', '/api/user/login', { username: name, password });
  expect(res.body.success, res.body.message).toBe(true);
  if (res.body.data!.require_2fa)
    expect((await secondStep(c, res.body.data!.flow_token, clock.code(secret!))).body.success).toBe(true);
  else c.userId = res.body.data!.id;
  return c;
}

/** Signs the holder of GitHub account `githubId` in on the probing node (through the second step when 2FA is on). */
async function signInByGithub(nodes: MatrixNodes, githubId: number, login: string, secret?: string): Promise<Client> {
  const c = new Client(nodes.probe.app);
  const state = await oauthState(c);
  const code = nodes.mock.issueCode('github', { id: githubId, login, name: login, email: null });
  const res = await oauthCallback(c, 'github', code, state.state, state.cookie);
  expect(res.body.success, res.body.message).toBe(true);
  const challenge = res.body.data as unknown as Challenge;
  if (challenge.require_2fa)
    expect((await secondStep(c, challenge.flow_token, nodes.clock.code(secret!))).body.success).toBe(true);
  return c;
}

let serial = 0;

/** A user (an administrator when `admin`) with two sessions, an access token, an `sk-` key, a GitHub binding and, unless `without2fa`, 2FA. */
export async function makeSubject(
  nodes: MatrixNodes,
  label: string,
  opts: { admin?: boolean; without2fa?: boolean } = {},
): Promise<Subject> {
  const n = ++serial;
  const name = `cm${n}-${label}`.slice(0, 20);
  const email = `cm${n}@example.com`;
  const created = await nodes.rootAct.call<{ id: number }>('POST', '/api/user/', {
    username: name,
    password: PASSWORD,
    display_name: name,
    role: opts.admin ? ADMIN : 1,
  });
  expect(created.body.success, created.body.message).toBe(true);
  const id = created.body.data!.id;
  const githubId = 7_000_000 + n + Math.floor(Math.random() * 1_000_000) * 10;
  expect((await nodes.rootAct.call('PUT', '/api/user/', { id, email })).body.success).toBe(true);
  // Bound through the store: binding flows have their own tests; here the binding is a credential to probe.
  await new OAuthStore(nodes.act.runtime.ctx.db).bind(GITHUB, id, String(githubId));
  const session = await signIn(nodes.act, name, PASSWORD, nodes.clock);
  const secret = opts.without2fa ? undefined : (await enableTwoFactor(session, nodes.clock)).secret;
  const passkey = await registerPasskey(session, nodes.clock, secret);
  const other = await signIn(nodes.probe, name, PASSWORD, nodes.clock, secret);
  const viaGithub = await signInByGithub(nodes, githubId, name, secret);
  const token = await session.call<string>('GET', '/api/user/token');
  expect(token.body.success, token.body.message).toBe(true);
  const { key } = await addToken(nodes.act, id);
  const org = await session.call<{ id: number }>('POST', '/api/org', { name: `${name} org` });
  expect(org.body.success, org.body.message).toBe(true);
  const orgKey = await session.call<{ key: string }>('POST', `/api/org/${org.body.data!.id}/tokens`, { name: 'held' });
  expect(orgKey.body.success, orgKey.body.message).toBe(true);
  return {
    id,
    name,
    password: PASSWORD,
    email,
    session,
    sessionCookie: session.cookie,
    other,
    viaGithub,
    accessToken: token.body.data!,
    apiKey: key,
    orgKey: `sk-${orgKey.body.data!.key}`,
    githubId,
    passkey,
    secret,
  };
}

type PasskeyOptions = { options: { publicKey: { challenge: string; user: { id: string } } } };

/** Registers a software passkey from `session` (after a secure verification with a code when 2FA is on). */
async function registerPasskey(session: Client, clock: TotpClock, secret?: string): Promise<SoftAuthenticator> {
  if (secret) {
    const verified = await session.call('POST', '/api/verify', { method: '2fa', code: clock.code(secret) });
    expect(verified.body.success, verified.body.message).toBe(true);
  }
  const key = new SoftAuthenticator(new URL(MATRIX_ORIGIN).hostname, MATRIX_ORIGIN);
  const begin = await session.call<PasskeyOptions>('POST', '/api/user/passkey/register/begin');
  expect(begin.body.success, begin.body.message).toBe(true);
  const done = await session.call(
    'POST',
    '/api/user/passkey/register/finish',
    key.register(begin.body.data!.options.publicKey),
  );
  expect(done.body.success, done.body.message).toBe(true);
  return key;
}

/** Whether the passkey `key` signs someone in on `app`. */
async function passkeyOutcome(app: TestApp, key: SoftAuthenticator): Promise<Outcome> {
  const c = new Client(app.app);
  const begin = await c.call<PasskeyOptions>('POST', '/api/user/passkey/login/begin');
  expect(begin.body.success, begin.body.message).toBe(true);
  const res = await c.call('POST', '/api/user/passkey/login/finish', key.assert(begin.body.data!.options.publicKey));
  return res.body.success ? 'works' : 'ends';
}

const withCookie = (app: TestApp, cookie: string, userId: number): Client =>
  Object.assign(new Client(app.app), { cookie, userId });
const viaAccessToken = (app: TestApp, s: Subject): Client =>
  Object.assign(new Client(app.app), { accessToken: s.accessToken, userId: s.id });
const outcomeOf = (status: number): Outcome => (status === 200 ? 'works' : 'ends');

/** Polls of the relay on another node while the Redis bus carries an event (Date is faked: tries, not a deadline). */
const BUS_POLLS = 100;
const BUS_POLL_MS = 20;

/**
 * The `sk-` key's outcome on the probing node. On the acting node the relay drops its copy before the event's
 * answer; another node hears of it on the Redis bus, so there the answer may take up to BUS_POLLS polls to become
 * `expected` (it is returned as it is then).
 */
async function apiKeyOutcome(nodes: MatrixNodes, apiKey: string, expected: Outcome): Promise<Outcome> {
  const once = async () =>
    outcomeOf(
      (
        await nodes.probe.app.inject({
          method: 'GET',
          url: '/v1/models',
          headers: { authorization: `Bearer ${apiKey}` },
        })
      ).statusCode,
    );
  let outcome = await once();
  for (let i = 0; nodes.probe !== nodes.act && outcome !== expected && i < BUS_POLLS; i++) {
    await new Promise((r) => setTimeout(r, BUS_POLL_MS));
    outcome = await once();
  }
  return outcome;
}

/** Tries every credential of `s` on the probing node; the answers as Effects (`expectedApiKey`: see apiKeyOutcome). */
export async function probe(nodes: MatrixNodes, s: Subject, expectedApiKey: Outcome = 'works'): Promise<Effects> {
  const { probe: app } = nodes;
  const self = async (c: Client) => outcomeOf((await c.call('GET', '/api/user/self')).status);
  const accessToken = await self(viaAccessToken(app, s));
  if (accessToken === 'ends') {
    // Hole 5: a stale access token must not mint an sk- key either.
    const minted = await viaAccessToken(app, s).call('POST', '/api/token/', {
      name: 'minted-by-stale-token',
      unlimited_quota: true,
    });
    expect(minted.status, minted.body.message).toBe(401);
    const rows = await app.database.db.kysely
      .selectFrom('tokens')
      .select('id')
      .where('name', '=', 'minted-by-stale-token')
      .where('user_id', '=', s.id)
      .execute();
    expect(rows).toEqual([]);
  }
  const apiKey = await apiKeyOutcome(nodes, s.apiKey, expectedApiKey);
  // An organization token the user holds ends exactly when their own key does (disabled, deleted) and lives on
  // otherwise: the organization's wallet is not theirs, but the person holding it is.
  expect(await apiKeyOutcome(nodes, s.orgKey, apiKey), 'the organization token the user holds').toBe(apiKey);
  const browser = new Client(app.app);
  const state = await oauthState(browser);
  const signedIn = await oauthCallback(
    browser,
    'github',
    nodes.mock.issueCode('github', { id: s.githubId, login: s.name, name: s.name, email: null }),
    state.state,
    state.cookie,
  );
  const twoFactor = await app.database.db.kysely
    .selectFrom('two_factor')
    .select('enabled')
    .where('user_id', '=', s.id)
    .executeTakeFirst();
  return {
    thisSession: await self(withCookie(app, s.sessionCookie, s.id)),
    otherSessions: await self(s.other),
    accessToken,
    apiKey,
    oauthBinding: signedIn.body.success ? 'works' : 'ends',
    passkey: await passkeyOutcome(app, s.passkey),
    identitySession: await self(s.viaGithub),
    twoFactor: Number(twoFactor?.enabled ?? 0) === 1 ? 'on' : 'off',
  };
}

/** Whether the user's remaining console credentials still reach an admin-only route (the user list). */
export async function adminPowers(nodes: MatrixNodes, s: Subject): Promise<Outcome> {
  const bySession = (await s.other.call('GET', '/api/user/')).status;
  const byToken = (await viaAccessToken(nodes.probe, s).call('GET', '/api/user/')).status;
  expect(bySession, 'the session and the access token agree').toBe(byToken);
  return outcomeOf(bySession);
}

/** Mails a reset link through the acting node and follows it; returns the new password. */
export async function resetByMail(nodes: MatrixNodes, s: Subject): Promise<string> {
  const before = nodes.smtp.to(s.email).length;
  const asked = await new Client(nodes.act.app).call('GET', `/api/reset_password?email=${encodeURIComponent(s.email)}`);
  expect(asked.body.success, asked.body.message).toBe(true);
  const mail = await nodes.smtp.waitFor(s.email, before);
  const token = new URL(/href="([^"]+)"/.exec(mail.text)![1]!).searchParams.get('token');
  const done = await new Client(nodes.act.app).call<string>('POST', '/api/user/reset', { email: s.email, token });
  expect(done.body.success, done.body.message).toBe(true);
  return done.body.data!;
}
