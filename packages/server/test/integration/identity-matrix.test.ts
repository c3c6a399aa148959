import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, setupRoot, type TestApp } from '../support/app.js';
import { useApp } from '../support/fixture.js';
import { addToken } from '../support/gateway.js';
import {
  customOidcKind,
  githubKind,
  ldapKind,
  passkeyKind,
  type IdentityKind,
  type IdentityNodes,
} from '../support/identity-kinds.js';
import { startMockOAuth, type MockOAuth } from '../support/mock-oauth.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { startSlapd, type Slapd } from '../support/slapd.js';
import { useTwoNodes } from '../support/two-nodes.js';

/**
 * The identity rows of the credential table (issue 36), for every kind of sign-in identity: GitHub, a root-defined
 * OpenID provider, a passkey, the directory. After each event that takes the identity away (unbound, its sign-in
 * switched off, revoked by the provider) the session it opened ends; the same user's password session and API key
 * still work; signing in by the identity no longer reaches the account. Held on one node (SQLite) and across two
 * (event on one, credentials tried on the other; PostgreSQL and Redis).
 */
const MOCKS: { oauth?: MockOAuth; issuer?: TestIssuer; slapd?: Slapd } = {};
const KINDS: IdentityKind[] = [
  githubKind(() => MOCKS.oauth!),
  customOidcKind(() => MOCKS.issuer!),
  passkeyKind(),
  ldapKind(() => MOCKS.slapd!),
];
const env: Record<string, string> = {};
beforeAll(async () => {
  [MOCKS.oauth, MOCKS.issuer, MOCKS.slapd] = await Promise.all([startMockOAuth(), startIssuer(), startSlapd()]);
  Object.assign(env, MOCKS.oauth.env);
});
afterAll(async () => {
  await Promise.all([MOCKS.oauth?.close(), MOCKS.issuer?.close(), MOCKS.slapd?.stop()]);
});

const signedIn = async (c: Client) => (await c.call('GET', '/api/user/self')).status === 200;
const keyWorks = async (app: TestApp, key: string) =>
  (await app.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${key}` } }))
    .statusCode === 200;

function identityRows(nodes: () => IdentityNodes): void {
  beforeAll(async () => {
    for (const kind of KINDS) await kind.configure(nodes());
  });
  for (const kind of KINDS) {
    for (const [event, step] of Object.entries(kind.events)) {
      it(`${kind.name} ${event}: its session ends and it signs in no more; the password session and API key stay`, async () => {
        const n = nodes();
        const s = await kind.subject(n, event.slice(0, 3));
        const viaPassword = new Client(n.act.app);
        expect((await viaPassword.login(s.username, s.password)).body.success).toBe(true);
        const elsewhere = new Client(n.probe.app);
        expect((await elsewhere.login(s.username, s.password)).body.success).toBe(true);
        const { key } = await addToken(n.act, s.id);
        expect([await signedIn(s.identity), await keyWorks(n.probe, key)]).toEqual([true, true]);

        await step.act(n, s, viaPassword);
        try {
          expect(await signedIn(s.identity), 'the session the identity opened').toBe(false);
          expect(await signedIn(viaPassword), 'the password session that acted').toBe(true);
          expect(await signedIn(elsewhere), 'a password session on the probing node').toBe(true);
          expect(await keyWorks(n.probe, key), 'an API key').toBe(true);
          expect(await s.signInAgain(), 'signing in by the identity again').not.toBe(s.id);
        } finally {
          await step.restore?.(n);
        }
      });
    }
  }
}

describe('identity events on one node (SQLite)', () => {
  let nodes: IdentityNodes;
  useApp('sqlite', { env, timeout: 30_000 }, ({ t, root }) => {
    nodes = { act: t, probe: t, rootAct: root, rootProbe: root };
  });
  identityRows(() => nodes);
});

describe('identity events across two nodes (shared PostgreSQL, Redis): the event on one, the credentials on the other', () => {
  let nodes: IdentityNodes;
  useTwoNodes(
    env,
    async ({ a, b }: { a: TestApp; b: TestApp }) => {
      const rootAct = await setupRoot(a.app);
      const rootProbe = new Client(b.app);
      expect((await rootProbe.login('root', 'root-pass-123')).body.success).toBe(true);
      nodes = { act: a, probe: b, rootAct, rootProbe };
    },
    60_000,
  );
  identityRows(() => nodes);
});
