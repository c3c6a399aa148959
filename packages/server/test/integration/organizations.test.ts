import { ErrorCode, type Organization, type OrgMember, type OrgTeam, type OrgToken } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { createUserClient, type Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, setQuota, userQuota } from '../support/gateway.js';
import { createOrg, join, ok, orgToken } from '../support/orgs.js';
import { FIXED_MODEL, openaiCall, PER_CALL } from '../support/period-limits.js';

const codeOf = (res: { body: { success: boolean } }) => (res.body as { code?: string }).code;

/**
 * Organizations through the API on every database: the shared wallet, membership and role rules, invitations,
 * teams, organization tokens in the relay and what ends them.
 */
describe.each(dialects)('organizations (%s)', (dialect) => {
  let root: Client, owner: Client, admin: Client, member: Client, viewer: Client, outsider: Client, base: string;
  let t: Parameters<typeof userQuota>[0];
  let org: Organization;
  const fx = useGateway(
    dialect,
    { users: ['o-owner', 'o-admin', 'o-member', 'o-viewer', 'o-outsider'] },
    async (gw) => {
      ({ t, root, base } = gw);
      [owner, admin, member, viewer, outsider] = gw.users as [Client, Client, Client, Client, Client];
      await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [FIXED_MODEL]: 0.001 }) });
      await addChannel(root, { name: 'main', key: 'main-key', baseUrl: gw.mock.url, models: FIXED_MODEL });
      org = await createOrg(owner, 'Acme');
      await join(owner, admin, org.id, 'admin');
      await join(admin, member, org.id, 'member');
      await join(admin, viewer, org.id, 'viewer');
    },
  );

  it('the creator owns it; the wallet is an account of its own that nobody signs in to', async () => {
    expect(org.role).toBe('owner');
    const mine = await ok<Organization[]>(member, 'GET', '/api/org/self');
    expect(mine.map((o) => [o.id, o.role])).toEqual([[org.id, 'member']]);
    const wallet = await t.database.db.kysely
      .selectFrom('users')
      .selectAll()
      .where('id', '=', org.wallet_user_id)
      .executeTakeFirstOrThrow();
    expect(Number(wallet.org_id)).toBe(org.id);
    // Even with a password an administrator gave it, no session opens on the wallet account.
    await root.call('PUT', '/api/user/', { id: org.wallet_user_id, password: 'wallet-pass-123' });
    const res = await fx.t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: wallet.username, password: 'wallet-pass-123' },
    });
    expect(res.json().success).toBe(false);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('an outsider is told the organization does not exist; a role without the capability is refused', async () => {
    for (const [method, url] of [
      ['GET', `/api/org/${org.id}`],
      ['GET', `/api/org/${org.id}/members`],
      ['POST', `/api/org/${org.id}/teams`],
    ] as const) {
      const res = await outsider.call(method, url, method === 'POST' ? { name: 'x' } : undefined);
      expect(codeOf(res)).toBe(ErrorCode.OrgNotFound);
    }
    const invite = await member.call('POST', `/api/org/${org.id}/invitations`, { role: 'member' });
    expect(codeOf(invite)).toBe(ErrorCode.OrgForbidden);
    const token = await viewer.call('POST', `/api/org/${org.id}/tokens`, { name: 'v' });
    expect(codeOf(token)).toBe(ErrorCode.OrgForbidden);
    // An admin grants roles below owner; the owner role is the owners' to give.
    expect(codeOf(await admin.call('PUT', `/api/org/${org.id}/members/${member.userId}`, { role: 'owner' }))).toBe(
      ErrorCode.OrgForbidden,
    );
    // The last owner neither leaves nor is demoted.
    expect(codeOf(await owner.call('DELETE', `/api/org/${org.id}/members/${owner.userId}`))).toBe(
      ErrorCode.OrgLastOwner,
    );
    expect(codeOf(await owner.call('PUT', `/api/org/${org.id}/members/${owner.userId}`, { role: 'admin' }))).toBe(
      ErrorCode.OrgLastOwner,
    );
  });

  it('an invitation is used once, even by two people at the same moment; an e-mail invitation only by that address', async () => {
    const { code } = await ok<{ code: string }>(admin, 'POST', `/api/org/${org.id}/invitations`, { role: 'viewer' });
    const extra = [await createUser(root, `o-race1-${dialect}`), await createUser(root, `o-race2-${dialect}`)];
    const both = await Promise.all(extra.map((c) => c.call('POST', '/api/org/invitation/accept', { code })));
    expect(both.filter((r) => r.body.success)).toHaveLength(1);
    expect(codeOf(both.find((r) => !r.body.success)!)).toBe(ErrorCode.OrgInvitationInvalid);
    // Mail is not configured: an e-mail invitation is refused before anything is stored.
    const mailed = await admin.call('POST', `/api/org/${org.id}/invitations`, { email: 'x@example.com' });
    expect(mailed.body.success).toBe(false);
    const pending = await ok<{ email: string }[]>(admin, 'GET', `/api/org/${org.id}/invitations`);
    expect(pending.some((i) => i.email === 'x@example.com')).toBe(false);
    // A revoked code opens nothing.
    const revoked = await ok<{ code: string; invitation: { id: number } }>(
      admin,
      'POST',
      `/api/org/${org.id}/invitations`,
      {},
    );
    await ok(admin, 'DELETE', `/api/org/${org.id}/invitations/${revoked.invitation.id}`);
    expect(codeOf(await outsider.call('GET', `/api/org/invitation?code=${revoked.code}`))).toBe(
      ErrorCode.OrgInvitationInvalid,
    );
  });

  it('organization tokens spend the shared wallet, attributed to their member and team; removal ends them', async () => {
    await setQuota(root, org.wallet_user_id, 100 * PER_CALL);
    const team = await ok<OrgTeam>(admin, 'POST', `/api/org/${org.id}/teams`, { name: 'research' });
    // A token in a team its member is not in is refused; once in the team, it is issued.
    expect(codeOf(await member.call('POST', `/api/org/${org.id}/tokens`, { name: 'm', team_id: team.id }))).toBe(
      ErrorCode.OrgTokenTeamInvalid,
    );
    await ok(admin, 'PUT', `/api/org/${org.id}/teams/${team.id}/members/${member.userId}`);
    const tok = await orgToken(member, org.id, { name: 'm', team_id: team.id });
    expect(tok.key).toMatch(/^[A-Za-z0-9]{48}$/);
    // A member sees their own tokens only; an admin sees every one.
    await orgToken(admin, org.id, { name: 'a' });
    expect((await ok<OrgToken[]>(member, 'GET', `/api/org/${org.id}/tokens`)).map((x) => x.name)).toEqual(['m']);
    expect((await ok<OrgToken[]>(admin, 'GET', `/api/org/${org.id}/tokens`)).length).toBe(2);

    const before = await userQuota(t, org.wallet_user_id);
    const personal = await userQuota(t, member.userId!);
    expect((await openaiCall(base, `sk-${tok.key}`)).status).toBe(200);
    expect(await userQuota(t, org.wallet_user_id)).toBe(before - PER_CALL);
    expect(await userQuota(t, member.userId!)).toBe(personal);
    await drainWriter(t);
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('token_id', '=', tok.id)
      .executeTakeFirstOrThrow();
    expect([log.user_id, log.quota]).toEqual([org.wallet_user_id, PER_CALL]);

    // The member leaves: their organization token stops at once.
    await ok(member, 'DELETE', `/api/org/${org.id}/members/${member.userId}`);
    expect([401, 403]).toContain((await openaiCall(base, `sk-${tok.key}`)).status);
    const members = await ok<OrgMember[]>(admin, 'GET', `/api/org/${org.id}/members`);
    expect(members.some((m) => m.user_id === member.userId)).toBe(false);
    await join(admin, member, org.id, 'member');
  });

  it('a redemption code credits the shared wallet; disabling the organization stops its tokens', async () => {
    const codes = await ok<string[]>(root, 'POST', '/api/redemption/', { name: 'org', count: 1, quota: 12345 });
    const before = await userQuota(t, org.wallet_user_id);
    expect(await ok<{ quota: number }>(admin, 'POST', `/api/org/${org.id}/redeem`, { key: codes[0] })).toEqual({
      quota: 12345,
    });
    expect(await userQuota(t, org.wallet_user_id)).toBe(before + 12345);
    expect(codeOf(await member.call('POST', `/api/org/${org.id}/redeem`, { key: 'x' }))).toBe(ErrorCode.OrgForbidden);

    const tok = await orgToken(admin, org.id, { name: 'disable-me' });
    expect((await openaiCall(base, `sk-${tok.key}`)).status).toBe(200);
    await ok(root, 'PUT', `/api/org/${org.id}/status`, { status: 2 });
    expect((await openaiCall(base, `sk-${tok.key}`)).status).toBe(403);
    expect(codeOf(await admin.call('POST', `/api/org/${org.id}/teams`, { name: 'frozen' }))).toBe(
      ErrorCode.OrgDisabled,
    );
    await ok(root, 'PUT', `/api/org/${org.id}/status`, { status: 1 });
    expect((await openaiCall(base, `sk-${tok.key}`)).status).toBe(200);
  });

  it('the budget-alert webhook is checked by the outbound guard when it is saved, its secret never answered', async () => {
    const blocked = await admin.call('PUT', `/api/org/${org.id}`, { alert_webhook_url: 'http://127.0.0.1:9/hook' });
    expect(codeOf(blocked)).toBe(ErrorCode.WebhookUrlBlocked);
    expect(codeOf(await admin.call('PUT', `/api/org/${org.id}`, { alert_webhook_url: 'ftp://example.com/x' }))).toBe(
      ErrorCode.InvalidInput,
    );
    const saved = await ok<Organization>(admin, 'PUT', `/api/org/${org.id}`, { alert_webhook_secret: 's3cret' });
    expect(JSON.stringify(saved)).not.toContain('s3cret');
  });

  it('own prices only when root allows them, set by an owner', async () => {
    expect(codeOf(await owner.call('PUT', `/api/org/${org.id}`, { markup_bp: 2000 }))).toBe(ErrorCode.OrgResellerOff);
    await ok(root, 'PUT', `/api/org/${org.id}/reseller`, { reseller: true });
    expect(codeOf(await admin.call('PUT', `/api/org/${org.id}`, { markup_bp: 2000 }))).toBe(ErrorCode.OrgForbidden);
    expect((await ok<Organization>(owner, 'PUT', `/api/org/${org.id}`, { markup_bp: 2000 })).markup_bp).toBe(2000);
    // Taking the permission back takes the prices with it.
    expect((await ok<Organization>(root, 'PUT', `/api/org/${org.id}/reseller`, { reseller: false })).markup_bp).toBe(0);
  });

  it('deleting an organization ends it for its members and stops its tokens', async () => {
    const doomed = await createOrg(owner, 'Doomed');
    await setQuota(root, doomed.wallet_user_id, 10 * PER_CALL);
    const tok = await orgToken(owner, doomed.id, { name: 'd' });
    expect((await openaiCall(base, `sk-${tok.key}`)).status).toBe(200);
    expect(codeOf(await admin.call('DELETE', `/api/org/${doomed.id}`))).toBe(ErrorCode.OrgNotFound);
    await ok(owner, 'DELETE', `/api/org/${doomed.id}`);
    expect((await ok<Organization[]>(owner, 'GET', '/api/org/self')).some((o) => o.id === doomed.id)).toBe(false);
    expect(codeOf(await owner.call('GET', `/api/org/${doomed.id}`))).toBe(ErrorCode.OrgNotFound);
    expect((await openaiCall(base, `sk-${tok.key}`)).status).not.toBe(200);
  });

  const createUser = (by: Client, name: string): Promise<Client> => createUserClient(fx.t.app, by, name);
});
