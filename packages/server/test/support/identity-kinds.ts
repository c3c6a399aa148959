// The sign-in identities of issue 36 as the identity matrix drives them: each kind's switch, how a subject gets a
// session by it on the probing node, and the events that take it away (identity-matrix.test.ts).
import crypto from 'node:crypto';
import { expect } from 'vitest';
import { ldapRevalidationOf } from '../../src/modules/ldap/revalidate.js';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../src/modules/custom-oauth/backchannel.js';
import { GITHUB } from '../../src/modules/oauth/account.js';
import { OAuthStore } from '../../src/modules/oauth/store.js';
import { nowSeconds } from '../../src/lib/time.js';
import { Client, type TestApp } from './app.js';
import { MOCK_CLIENTS, type MockOAuth } from './mock-oauth.js';
import { oauthCallback, oauthState } from './oauth-flow.js';
import { oauthCodeProvider, signInThroughIssuer, type TestIssuer } from './oidc-issuer.js';
import { LDAP_PEOPLE, LDAP_SERVICE_DN, LDAP_SERVICE_PASSWORD, type Slapd } from './slapd.js';
import { SoftAuthenticator } from './webauthn.js';

/** The cluster: events happen on `act`, credentials are used on `probe` (the same node in a one-node run). */
export interface IdentityNodes {
  act: TestApp;
  probe: TestApp;
  rootAct: Client;
  rootProbe: Client;
}

/** Who the matrix probes: a user with a session opened by the identity (on probe) and a password. */
export interface IdentitySubject {
  id: number;
  username: string;
  password: string;
  identity: Client;
  /** Signs in by the identity again on probe: the user it lands on, or undefined when refused. */
  signInAgain(): Promise<number | undefined>;
}

export type IdentityEventName = 'unbound' | 'switched off' | 'revoked by the provider';

export interface IdentityKind {
  name: string;
  configure(n: IdentityNodes): Promise<void>;
  subject(n: IdentityNodes, label: string): Promise<IdentitySubject>;
  events: Partial<
    Record<
      IdentityEventName,
      {
        act(n: IdentityNodes, s: IdentitySubject, viaPassword: Client): Promise<void>;
        restore?(n: IdentityNodes): Promise<void>;
      }
    >
  >;
}

export const SUBJECT_PASSWORD = 'identity-pass-123';
/** The origin passkeys are registered for (ServerAddress). */
export const IDENTITY_ORIGIN = 'http://localhost:3000';

export const ok = async (res: Promise<{ body: { success: boolean; message: string } }>) => {
  const { body } = await res;
  expect(body.success, body.message).toBe(true);
};
/** Saves options on both nodes (neither then waits for the other to hear of them). */
export async function setOptions(n: IdentityNodes, options: Record<string, string>): Promise<void> {
  for (const root of new Set([n.rootAct, n.rootProbe]))
    for (const [key, value] of Object.entries(options)) await ok(root.call('PUT', '/api/option/', { key, value }));
}
/**
 * Gives `id` the subject's password and an e-mail address (root): a password session can be opened beside the
 * identity's, and the identity is not the account's only way back in (so it may be unbound).
 */
const giveLocalSignIn = (n: IdentityNodes, id: number, username: string) =>
  ok(n.rootAct.call('PUT', '/api/user/', { id, password: SUBJECT_PASSWORD, email: `${username}@example.com` }));
const idOf = (res: { body: { success: boolean; data?: unknown } }) =>
  res.body.success ? (res.body.data as { id?: number } | undefined)?.id : undefined;

let serial = 0;
const nextName = (label: string) => `im${++serial}${label}`.slice(0, 20);

export function githubKind(mock: () => MockOAuth): IdentityKind {
  const signIn = async (app: TestApp, githubId: number, login: string) => {
    const c = new Client(app.app);
    const state = await oauthState(c);
    const code = mock().issueCode('github', { id: githubId, login, name: login, email: null });
    return { c, res: await oauthCallback(c, 'github', code, state.state, state.cookie) };
  };
  return {
    name: 'GitHub',
    configure: (n) =>
      setOptions(n, {
        GitHubOAuthEnabled: 'true',
        GitHubClientId: MOCK_CLIENTS.github.id,
        GitHubClientSecret: MOCK_CLIENTS.github.secret,
      }),
    async subject(n, label) {
      const username = nextName(label);
      const created = await n.rootAct.call<{ id: number }>('POST', '/api/user/', {
        username,
        password: SUBJECT_PASSWORD,
      });
      expect(created.body.success, created.body.message).toBe(true);
      const id = created.body.data!.id;
      await giveLocalSignIn(n, id, username);
      const githubId = 9_000_000 + serial * 10 + Math.floor(Math.random() * 10);
      await new OAuthStore(n.act.runtime.ctx.db).bind(GITHUB, id, String(githubId));
      const { c, res } = await signIn(n.probe, githubId, username);
      expect(res.body.success, res.body.message).toBe(true);
      return {
        id,
        username,
        password: SUBJECT_PASSWORD,
        identity: c,
        signInAgain: async () => idOf((await signIn(n.probe, githubId, username)).res),
      };
    },
    events: {
      unbound: { act: (_n, _s, me) => ok(me.call('DELETE', '/api/user/oauth/bindings/github')) },
      'switched off': {
        act: (n) => setOptions(n, { GitHubOAuthEnabled: 'false' }),
        restore: (n) => setOptions(n, { GitHubOAuthEnabled: 'true' }),
      },
    },
  };
}

export function customOidcKind(issuer: () => TestIssuer): IdentityKind {
  let providerId = 0;
  const signIn = async (app: TestApp, sub: string) => {
    issuer().signInAs = sub;
    const c = new Client(app.app);
    return { c, res: await signInThroughIssuer(c) };
  };
  const setEnabled = (n: IdentityNodes, enabled: boolean) =>
    ok(n.rootAct.call('PUT', `/api/custom-oauth-provider/${providerId}`, { enabled }));
  return {
    name: 'a root-defined OpenID provider',
    async configure(n) {
      const is = issuer();
      await setOptions(n, {
        'fetch_setting.allow_private_ip': 'true',
        'fetch_setting.allowed_ports': JSON.stringify([String(new URL(is.url).port)]),
      });
      const created = await n.rootAct.call<{ id: number }>(
        'POST',
        '/api/custom-oauth-provider/',
        oauthCodeProvider(is, { auto_register: true }),
      );
      expect(created.body.success, created.body.message).toBe(true);
      providerId = created.body.data!.id;
    },
    async subject(n, label) {
      const username = nextName(label);
      const sub = `sub-${username}`;
      issuer().users.set(sub, { claims: { preferred_username: username } });
      // The first sign-in makes the user; root's password reset ends its sessions, so the probed one comes after.
      const first = await signIn(n.probe, sub);
      const id = idOf(first.res);
      expect(id, first.res.body.message).toBeTypeOf('number');
      await giveLocalSignIn(n, id!, username);
      const { c, res } = await signIn(n.probe, sub);
      expect(idOf(res), res.body.message).toBe(id);
      return {
        id: id!,
        username: (res.body.data as { username: string }).username,
        password: SUBJECT_PASSWORD,
        identity: c,
        signInAgain: async () => idOf((await signIn(n.probe, sub)).res),
      };
    },
    events: {
      unbound: { act: (_n, _s, me) => ok(me.call('DELETE', `/api/user/oauth/bindings/${providerId}`)) },
      'switched off': { act: (n) => setEnabled(n, false), restore: (n) => setEnabled(n, true) },
      'revoked by the provider': {
        async act(n, s) {
          // The provider disables the user: it signs them in no more, and posts a back-channel logout.
          const sub = `sub-${s.username}`;
          issuer().users.get(sub)!.disabled = true;
          const token = await issuer().sign({
            aud: issuer().clientId,
            jti: crypto.randomUUID(),
            sub,
            events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
          });
          const res = await n.act.app.inject({
            method: 'POST',
            url: '/api/oauth/custom/acme/backchannel-logout',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ logout_token: token }).toString(),
          });
          expect(res.statusCode, res.body).toBe(200);
        },
      },
    },
  };
}

export function passkeyKind(): IdentityKind {
  const keys = new Map<number, SoftAuthenticator>();
  const signIn = async (app: TestApp, key: SoftAuthenticator) => {
    const c = new Client(app.app);
    const begin = await c.call<{ options: { publicKey: { challenge: string } } }>(
      'POST',
      '/api/user/passkey/login/begin',
    );
    if (!begin.body.success) return { c, res: begin };
    return {
      c,
      res: await c.call('POST', '/api/user/passkey/login/finish', key.assert(begin.body.data!.options.publicKey)),
    };
  };
  const setEnabled = (n: IdentityNodes, on: boolean) => setOptions(n, { 'passkey.enabled': String(on) });
  return {
    name: 'a passkey',
    configure: (n) => setOptions(n, { ServerAddress: IDENTITY_ORIGIN, 'passkey.enabled': 'true' }),
    async subject(n, label) {
      const username = nextName(label);
      const created = await n.rootAct.call<{ id: number }>('POST', '/api/user/', {
        username,
        password: SUBJECT_PASSWORD,
      });
      expect(created.body.success, created.body.message).toBe(true);
      const id = created.body.data!.id;
      const owner = new Client(n.act.app);
      await ok(owner.login(username, SUBJECT_PASSWORD));
      const key = new SoftAuthenticator('localhost', IDENTITY_ORIGIN);
      const begin = await owner.call<{ options: { publicKey: { challenge: string; user: { id: string } } } }>(
        'POST',
        '/api/user/passkey/register/begin',
      );
      expect(begin.body.success, begin.body.message).toBe(true);
      await ok(
        owner.call('POST', '/api/user/passkey/register/finish', key.register(begin.body.data!.options.publicKey)),
      );
      keys.set(id, key);
      const { c, res } = await signIn(n.probe, key);
      expect(idOf(res), res.body.message).toBe(id);
      c.userId = id;
      return {
        id,
        username,
        password: SUBJECT_PASSWORD,
        identity: c,
        signInAgain: async () => idOf((await signIn(n.probe, key)).res),
      };
    },
    events: {
      unbound: { act: (n, s) => ok(n.rootAct.call('DELETE', `/api/user/${s.id}/reset_passkey`)) },
      'switched off': { act: (n) => setEnabled(n, false), restore: (n) => setEnabled(n, true) },
    },
  };
}

export function ldapKind(slapd: () => Slapd): IdentityKind {
  const signIn = async (app: TestApp, uid: string) => {
    const c = new Client(app.app);
    return { c, res: await c.call('POST', '/api/user/login/ldap', { username: uid, password: `${uid}-pw` }) };
  };
  const setEnabled = (n: IdentityNodes, on: boolean) => setOptions(n, { LDAPEnabled: String(on) });
  return {
    name: 'the directory (LDAP)',
    configure: (n) =>
      setOptions(n, {
        LDAPServerURL: slapd().url,
        LDAPBindDN: LDAP_SERVICE_DN,
        LDAPBindPassword: LDAP_SERVICE_PASSWORD,
        LDAPBaseDN: LDAP_PEOPLE,
        LDAPUserFilter: '(&(objectClass=inetOrgPerson)(uid={username}))',
        LDAPEnabled: 'true',
      }),
    async subject(n, label) {
      const uid = nextName(label).toLowerCase();
      await slapd().addPerson({ uid, password: `${uid}-pw` });
      const first = await signIn(n.probe, uid);
      const id = idOf(first.res);
      expect(id, first.res.body.message).toBeTypeOf('number');
      expect((first.res.body.data as { username: string }).username).toBe(uid);
      await giveLocalSignIn(n, id!, uid);
      const { c, res } = await signIn(n.probe, uid);
      expect(idOf(res), res.body.message).toBe(id);
      c.userId = id;
      return {
        id: id!,
        username: uid,
        password: SUBJECT_PASSWORD,
        identity: c,
        signInAgain: async () => idOf((await signIn(n.probe, uid)).res),
      };
    },
    events: {
      unbound: { act: (_n, _s, me) => ok(me.call('DELETE', '/api/user/ldap/binding')) },
      'switched off': { act: (n) => setEnabled(n, false), restore: (n) => setEnabled(n, true) },
      'revoked by the provider': {
        async act(n, s) {
          await slapd().removePerson(s.username);
          // The directory check, as its timer would run it once the session is older than LDAPRevalidateSeconds.
          const pass = await ldapRevalidationOf(n.act.runtime.ctx).runOnce(nowSeconds() + 10_000);
          expect(pass.ended).toContain(s.id);
        },
      },
    },
  };
}
