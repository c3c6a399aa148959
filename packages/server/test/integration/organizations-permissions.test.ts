import { ErrorCode, orgCan, type OrgCapability, type OrgRole } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { orgNeedOf } from '../../src/modules/organizations/org-route.js';
import type { Client } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { createOrg, join, ok, orgToken } from '../support/orgs.js';

/** What each organization route needs, and a body that passes validation (so a refusal comes from the rules). */
interface OrgRouteCase {
  need: OrgCapability;
  body?: unknown;
  query?: string;
  /** Allowed callers are not tried: the call would end the organization (its own test covers it). */
  deniedOnly?: boolean;
  /** What the route itself declares when its service refines it (default: `need`). */
  declared?: OrgCapability;
}

const MISSING = 999_999;
const RANGE = 'start_timestamp=0&end_timestamp=86400';

/**
 * Every /api/org/:id route that organization roles decide (the system-level ones — reseller, status, all — are the
 * global permission matrix's), keyed as the router registers them. A route missing here fails the sweep, so a new
 * organization route has to state who may call it.
 */
const CASES: Record<string, OrgRouteCase> = {
  'GET /api/org/:id': { need: 'org.read' },
  'PUT /api/org/:id': { need: 'org.manage', body: { name: 'Acme' } },
  'DELETE /api/org/:id': { need: 'org.own', deniedOnly: true },
  'GET /api/org/:id/members': { need: 'org.read' },
  'PUT /api/org/:id/members/:user_id': { need: 'members.manage', body: { role: 'viewer' } },
  // Any member may leave (remove themself): the route asks org.read, the service members.manage for anyone else.
  'DELETE /api/org/:id/members/:user_id': { need: 'members.manage', declared: 'org.read' },
  'GET /api/org/:id/invitations': { need: 'members.manage' },
  'POST /api/org/:id/invitations': { need: 'members.manage', body: { role: 'member' } },
  'DELETE /api/org/:id/invitations/:invitation_id': { need: 'members.manage' },
  'GET /api/org/:id/teams': { need: 'org.read' },
  'POST /api/org/:id/teams': { need: 'teams.manage', body: { name: 'sweep' } },
  'PUT /api/org/:id/teams/:team_id': { need: 'teams.manage', body: { name: 'renamed' } },
  'DELETE /api/org/:id/teams/:team_id': { need: 'teams.manage' },
  'PUT /api/org/:id/teams/:team_id/members/:user_id': { need: 'teams.manage' },
  'DELETE /api/org/:id/teams/:team_id/members/:user_id': { need: 'teams.manage' },
  'GET /api/org/:id/tokens': { need: 'tokens.own' },
  'POST /api/org/:id/tokens': { need: 'tokens.own', body: { name: 'sweep' } },
  'PUT /api/org/:id/tokens/:token_id': { need: 'tokens.own', body: { name: 'sweep' } },
  'DELETE /api/org/:id/tokens/:token_id': { need: 'tokens.own' },
  'POST /api/org/:id/redeem': { need: 'wallet.credit', body: { key: 'no-such-code' } },
  'GET /api/org/:id/budgets': { need: 'org.read' },
  'POST /api/org/:id/budgets': {
    need: 'budgets.manage',
    body: { level: 'org', period: 'day', limit_quota: 1_000_000, hard: false },
  },
  'PUT /api/org/:id/budgets/:budget_id': {
    need: 'budgets.manage',
    body: { level: 'org', period: 'day', limit_quota: 1_000_000, hard: false },
  },
  'DELETE /api/org/:id/budgets/:budget_id': { need: 'budgets.manage' },
  'GET /api/org/:id/logs': { need: 'org.read' },
  'GET /api/org/:id/spend': { need: 'org.read', query: RANGE },
  'GET /api/org/:id/spend/export': { need: 'org.read', query: RANGE },
};
const SYSTEM_LEVEL = new Set(['GET /api/org/all', 'PUT /api/org/:id/reseller', 'PUT /api/org/:id/status']);

const codeOf = (res: { body: unknown }) => (res.body as { code?: string }).code;

describe.each(dialects)('organization permission sweep (%s)', (dialect) => {
  const fx = useApp(dialect, {
    admins: ['ps-sysadmin'],
    users: ['ps-owner', 'ps-admin', 'ps-member', 'ps-viewer', 'ps-outsider', 'ps-other-owner'],
  });
  type Who = OrgRole | 'outsider' | 'other-org-owner' | 'system-admin';

  it('every organization route × role: outsiders and other organizations are told nothing exists, roles get what they may', async () => {
    const [owner, admin, member, viewer, outsider, otherOwner] = fx.users as Client[];
    const a = await createOrg(owner!, 'Acme');
    await join(owner!, admin!, a.id, 'admin');
    await join(owner!, member!, a.id, 'member');
    await join(owner!, viewer!, a.id, 'viewer');
    const b = await createOrg(otherOwner!, 'Beta');
    const callers: [Who, Client][] = [
      ['owner', owner!],
      ['admin', admin!],
      ['member', member!],
      ['viewer', viewer!],
      ['outsider', outsider!],
      ['other-org-owner', otherOwner!],
      ['system-admin', fx.admins[0]!],
    ];

    const routes = fx.t.router.routes
      .map((r) => `${r.method} ${r.url}`)
      .filter((k) => k.includes(' /api/org/:id') && !SYSTEM_LEVEL.has(k));
    expect(routes.filter((k) => !CASES[k])).toEqual([]);
    // What each route declares (addOrgRoute) is what this table expects of it, independently written.
    const declared = fx.t.router.routes
      .filter((r) => routes.includes(`${r.method} ${r.url}`))
      .map((r) => [`${r.method} ${r.url}`, orgNeedOf(r)?.need]);
    expect(declared).toEqual(routes.map((k) => [k, CASES[k]!.declared ?? CASES[k]!.need]));

    for (const key of routes) {
      const c = CASES[key]!;
      const [method, pattern] = key.split(' ') as [string, string];
      const url =
        pattern
          .replace(':id', String(a.id))
          .replace(/:(team_id|token_id|budget_id|invitation_id|user_id)/g, String(MISSING)) +
        (c.query ? `?${c.query}` : '');
      for (const [who, client] of callers) {
        const role: OrgRole | undefined =
          who === 'system-admin' ? 'owner' : who === 'outsider' || who === 'other-org-owner' ? undefined : who;
        if (role && orgCan(role, c.need) && c.deniedOnly) continue;
        const res = await client.call(method, url, c.body);
        const code = codeOf(res);
        const expected = !role ? ErrorCode.OrgNotFound : orgCan(role, c.need) ? 'allowed' : ErrorCode.OrgForbidden;
        const got = code === ErrorCode.OrgNotFound || code === ErrorCode.OrgForbidden ? code : 'allowed';
        expect({ key, who, got }).toEqual({ key, who, got: expected });
        if (expected !== 'allowed') expect(res.body).toMatchObject({ success: false });
      }
    }
    // The other organization is untouched by all of it.
    expect((await ok<{ name: string }>(otherOwner!, 'GET', `/api/org/${b.id}`)).name).toBe('Beta');
  });

  it("another organization's teams, tokens, budgets, invitations and members are out of reach through one's own", async () => {
    const [owner, , , , , otherOwner] = fx.users as Client[];
    const a = await createOrg(owner!, 'Own');
    const b = await createOrg(otherOwner!, 'Theirs');
    const teamB = await ok<{ id: number }>(otherOwner!, 'POST', `/api/org/${b.id}/teams`, { name: 'secret' });
    const tokenB = await orgToken(otherOwner!, b.id, { name: 'theirs' });
    const budgetB = await ok<{ id: number }>(otherOwner!, 'POST', `/api/org/${b.id}/budgets`, {
      level: 'org',
      period: 'day',
      limit_quota: 5000,
    });
    const invB = await ok<{ invitation: { id: number } }>(otherOwner!, 'POST', `/api/org/${b.id}/invitations`, {});
    const ids = {
      team_id: teamB.id,
      token_id: tokenB.id,
      budget_id: budgetB.id,
      invitation_id: invB.invitation.id,
      user_id: otherOwner!.userId!,
    };
    for (const [key, c] of Object.entries(CASES)) {
      const [method, pattern] = key.split(' ') as [string, string];
      if (!/:(team_id|token_id|budget_id|invitation_id|user_id)/.test(pattern)) continue;
      const url = pattern
        .replace(':id', String(a.id))
        .replace(/:(team_id|token_id|budget_id|invitation_id|user_id)/g, (_, k: keyof typeof ids) => String(ids[k]));
      const res = await owner!.call(method, url, c.body);
      expect({ key, success: res.body.success }).toEqual({ key, success: false });
    }
    const teams = await ok<{ id: number; name: string }[]>(otherOwner!, 'GET', `/api/org/${b.id}/teams`);
    expect(teams.map((t) => t.name)).toEqual(['secret']);
    const tokens = await ok<{ id: number; name: string; status: number }[]>(
      otherOwner!,
      'GET',
      `/api/org/${b.id}/tokens`,
    );
    expect(tokens.map((t) => [t.name, t.status])).toEqual([['theirs', 1]]);
    const budgets = await ok<{ id: number; limit_quota: number }[]>(otherOwner!, 'GET', `/api/org/${b.id}/budgets`);
    expect(budgets.map((x) => x.limit_quota)).toEqual([5000]);
    const invs = await ok<{ id: number; status: number }[]>(otherOwner!, 'GET', `/api/org/${b.id}/invitations`);
    expect(invs.map((i) => i.status)).toEqual([1]);
    const members = await ok<{ user_id: number; role: string }[]>(otherOwner!, 'GET', `/api/org/${b.id}/members`);
    expect(members.map((m) => [m.user_id, m.role])).toEqual([[otherOwner!.userId, 'owner']]);
  });
});
