import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, setupRoot, type TestApp } from '../support/app.js';
import {
  adminPowers,
  configureMatrix,
  makeSubject,
  NEW_PASSWORD,
  PASSWORD,
  probe,
  resetByMail,
  type Effects,
  type MatrixNodes,
  type Subject,
} from '../support/credential-matrix.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { startMockOAuth, type MockOAuth } from '../support/mock-oauth.js';
import { startMockSmtp, type MockSmtp } from '../support/mock-smtp.js';
import { TotpClock, enableTwoFactor } from '../support/twofa.js';
import { useTwoNodes } from '../support/two-nodes.js';

type Row = {
  event: string;
  subject?: { admin?: boolean; without2fa?: boolean };
  act(nodes: MatrixNodes, s: Subject): Promise<void>;
  /** Puts back what the event changed for everyone (a switched-off sign-in), after the probe. */
  restore?(nodes: MatrixNodes): Promise<void>;
  expected: Effects;
};

const ok = async (res: Promise<{ body: { success: boolean; message: string } }>) => {
  const { body } = await res;
  expect(body.success, body.message).toBe(true);
};
const manage = (n: MatrixNodes, s: Subject, action: string) =>
  ok(n.rootAct.call('POST', '/api/user/manage', { id: s.id, action }));
/** Saves GitHub sign-in's switch on both nodes (neither then depends on how fast the other hears of it). */
const switchGithub = async (n: MatrixNodes, on: boolean) => {
  for (const root of new Set([n.rootAct, n.rootProbe]))
    await ok(root.call('PUT', '/api/option/', { key: 'GitHubOAuthEnabled', value: String(on) }));
};
/** Identity events (issue 36): only what the GitHub account opened ends, and signing in by it. */
const IDENTITY_GONE: Effects = {
  thisSession: 'works',
  otherSessions: 'works',
  accessToken: 'works',
  apiKey: 'works',
  oauthBinding: 'ends',
  passkey: 'works',
  identitySession: 'ends',
  twoFactor: 'on',
};

/**
 * The credential table of issue 31, stated here on its own (the code states it in modules/auth/credential-events.ts):
 * each event's effect on every credential kind. "thisSession" is the session cookie that was in use before the event.
 */
const MATRIX: Row[] = [
  {
    event: 'logout',
    act: (_n, s) => ok(s.session.call('GET', '/api/user/logout')),
    expected: {
      thisSession: 'ends',
      otherSessions: 'works',
      accessToken: 'works',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'works',
      twoFactor: 'on',
    },
  },
  {
    event: 'sign out everywhere',
    act: (_n, s) => ok(s.session.call('DELETE', '/api/user/sessions')),
    expected: {
      thisSession: 'works',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'ends',
      twoFactor: 'on',
    },
  },
  {
    event: 'password change',
    act: async (_n, s) => {
      await ok(s.session.call('PUT', '/api/user/self', { password: NEW_PASSWORD, original_password: PASSWORD }));
      // The browser that changed it keeps going on a fresh session.
      expect((await s.session.call('GET', '/api/user/self')).status).toBe(200);
    },
    expected: {
      thisSession: 'ends',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'ends',
      twoFactor: 'on',
    },
  },
  {
    event: 'password reset by an administrator',
    act: (n, s) => ok(n.rootAct.call('PUT', '/api/user/', { id: s.id, password: NEW_PASSWORD })),
    expected: {
      thisSession: 'ends',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'ends',
      twoFactor: 'on',
    },
  },
  {
    event: 'password reset by mailed link',
    act: async (n, s) => void (await resetByMail(n, s)),
    expected: {
      thisSession: 'ends',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'ends',
      twoFactor: 'on',
    },
  },
  {
    event: '2FA enabled',
    subject: { without2fa: true },
    act: async (n, s) => void (await enableTwoFactor(s.session, n.clock)),
    expected: {
      thisSession: 'works',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'ends',
      twoFactor: 'on',
    },
  },
  {
    event: '2FA disabled by the user',
    act: (n, s) => ok(s.session.call('POST', '/api/user/2fa/disable', { code: n.clock.code(s.secret!) })),
    expected: {
      thisSession: 'works',
      otherSessions: 'works',
      accessToken: 'works',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'works',
      twoFactor: 'off',
    },
  },
  {
    event: '2FA reset by an administrator',
    act: (n, s) => ok(n.rootAct.call('DELETE', `/api/user/${s.id}/2fa`)),
    expected: {
      thisSession: 'ends',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'ends',
      twoFactor: 'off',
    },
  },
  {
    event: 'user disabled',
    act: (n, s) => manage(n, s, 'disable'),
    expected: {
      thisSession: 'ends',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'ends',
      oauthBinding: 'ends',
      passkey: 'ends',
      identitySession: 'ends',
      twoFactor: 'on',
    },
  },
  {
    event: 'user disabled, then enabled again',
    act: async (n, s) => {
      await manage(n, s, 'disable');
      await manage(n, s, 'enable');
    },
    expected: {
      thisSession: 'ends',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'ends',
      twoFactor: 'on',
    },
  },
  {
    event: 'user deleted by an administrator',
    act: (n, s) => manage(n, s, 'delete'),
    expected: {
      thisSession: 'ends',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'ends',
      oauthBinding: 'ends',
      passkey: 'ends',
      identitySession: 'ends',
      twoFactor: 'off',
    },
  },
  {
    event: 'user deleted by themselves',
    act: (_n, s) => ok(s.session.call('DELETE', '/api/user/self')),
    expected: {
      thisSession: 'ends',
      otherSessions: 'ends',
      accessToken: 'ends',
      apiKey: 'ends',
      oauthBinding: 'ends',
      passkey: 'ends',
      identitySession: 'ends',
      twoFactor: 'off',
    },
  },
  {
    event: 'role lowered (administrator demoted)',
    subject: { admin: true },
    act: (n, s) => manage(n, s, 'demote'),
    expected: {
      thisSession: 'works',
      otherSessions: 'works',
      accessToken: 'works',
      apiKey: 'works',
      oauthBinding: 'works',
      passkey: 'works',
      identitySession: 'works',
      twoFactor: 'on',
      adminPowers: 'ends',
    },
  },
  {
    event: 'GitHub account unbound by the user',
    act: (_n, s) => ok(s.session.call('DELETE', '/api/user/oauth/bindings/github')),
    expected: IDENTITY_GONE,
  },
  {
    event: 'GitHub account unbound by an administrator',
    act: (n, s) => ok(n.rootAct.call('DELETE', `/api/user/${s.id}/oauth/bindings/github`)),
    expected: IDENTITY_GONE,
  },
  {
    event: 'GitHub sign-in switched off by the super administrator',
    act: (n) => switchGithub(n, false),
    restore: (n) => switchGithub(n, true),
    expected: IDENTITY_GONE,
  },
];

const EVERYTHING_WORKS: Effects = {
  thisSession: 'works',
  otherSessions: 'works',
  accessToken: 'works',
  apiKey: 'works',
  oauthBinding: 'works',
  passkey: 'works',
  identitySession: 'works',
  twoFactor: 'on',
};

/** One test per row: a fresh subject, every credential checked before, the event on `act`, every credential tried on `probe`. */
function matrixTests(nodes: () => MatrixNodes): void {
  for (const row of MATRIX) {
    it(`${row.event}: ${Object.entries(row.expected)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`, async () => {
      const n = nodes();
      const s = await makeSubject(n, row.event.split(' ')[0]!, row.subject);
      const admin = row.expected.adminPowers !== undefined;
      const before = await probe(n, s);
      expect(before).toEqual({ ...EVERYTHING_WORKS, twoFactor: row.subject?.without2fa ? 'off' : 'on' });
      if (admin) expect(await adminPowers(n, s)).toBe('works');
      await row.act(n, s);
      try {
        const after: Effects = await probe(n, s, row.expected.apiKey);
        if (admin) after.adminPowers = await adminPowers(n, s);
        expect(after, row.event).toEqual(row.expected);
      } finally {
        await row.restore?.(n);
      }
    });
  }
}

/** The mock provider, the SMTP server and the TOTP clock every suite shares; `env` gets the provider's hosts. */
function useMocks(): { env: Record<string, string>; mock: () => MockOAuth; smtp: () => MockSmtp; clock: TotpClock } {
  const env: Record<string, string> = {};
  let mock: MockOAuth, smtp: MockSmtp;
  const clock = new TotpClock();
  beforeAll(async () => {
    mock = await startMockOAuth();
    smtp = await startMockSmtp();
    Object.assign(env, mock.env);
    clock.start();
  });
  afterAll(async () => {
    clock.stop();
    await mock?.close();
    await smtp?.close();
  });
  return { env, mock: () => mock, smtp: () => smtp, clock };
}

describe.each(dialects)('the credential matrix on %s', (dialect) => {
  const mocks = useMocks();
  let nodes: MatrixNodes;
  useApp(dialect, { env: mocks.env, timeout: 30_000 }, async ({ t, root }) => {
    nodes = {
      act: t,
      probe: t,
      rootAct: root,
      rootProbe: root,
      mock: mocks.mock(),
      smtp: mocks.smtp(),
      clock: mocks.clock,
    };
    await configureMatrix(nodes);
  });
  matrixTests(() => nodes);

  it('hole 5: an access token taken before a password change can neither sign in nor mint an sk- key afterwards', async () => {
    const s = await makeSubject(nodes, 'hole5', { without2fa: true });
    await ok(s.session.call('PUT', '/api/user/self', { password: NEW_PASSWORD, original_password: PASSWORD }));
    const stale = Object.assign(new Client(nodes.act.app), { accessToken: s.accessToken, userId: s.id });
    const minted = await stale.call('POST', '/api/token/', { name: 'hole5-key', unlimited_quota: true });
    expect(minted.status, minted.body.message).toBe(401);
    expect(
      await nodes.act.database.db.kysely
        .selectFrom('tokens')
        .select('id')
        .where('user_id', '=', s.id)
        .where('name', '=', 'hole5-key')
        .execute(),
    ).toEqual([]);
    // A token generated after the change works, and may manage keys as new-api's access token does.
    const fresh = await s.session.call<string>('GET', '/api/user/token');
    const current = Object.assign(new Client(nodes.act.app), { accessToken: fresh.body.data!, userId: s.id });
    await ok(current.call('POST', '/api/token/', { name: 'hole5-key', unlimited_quota: true }));
  });
});

describe('the credential matrix across two nodes (shared PostgreSQL, Redis): the event on one, every credential tried on the other', () => {
  const mocks = useMocks();
  let nodes: MatrixNodes;
  useTwoNodes(
    mocks.env,
    async ({ a, b }: { a: TestApp; b: TestApp }) => {
      const rootAct = await setupRoot(a.app);
      const rootProbe = new Client(b.app);
      expect((await rootProbe.login('root', 'root-pass-123')).body.success).toBe(true);
      nodes = { act: a, probe: b, rootAct, rootProbe, mock: mocks.mock(), smtp: mocks.smtp(), clock: mocks.clock };
      await configureMatrix(nodes);
    },
    60_000,
  );
  matrixTests(() => nodes);
});
