import type { BudgetLevel, BudgetPeriod } from '@tollway/shared';
import { markedUp } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { periodEnd } from '../../src/core/period-limits/periods.js';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { concurrently, consumeLogs, createBudget, spent, taggedCall } from '../support/budgets.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { insertMember, insertOrg, insertOrgToken, insertTeam } from '../support/org-rows.js';
import { claudeCall, FIXED_MODEL, PER_CALL } from '../support/period-limits.js';

/** Room for 7 calls and part of an 8th: exactly 7 are served. */
const LIMIT = 7 * PER_CALL + PER_CALL / 2;
const CALLS = 100;

type OpenAIError = { error: { type: string; code: string; message: string } };

describe.each(dialects)('organization budgets (%s)', (dialect) => {
  let t: TestApp, root: Client, base: string;
  let person = 0;
  useGateway(dialect, {}, async (gw) => {
    ({ t, root, base } = gw);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [FIXED_MODEL]: 0.001 }) });
    await addChannel(root, { name: 'main', key: 'main-key', baseUrl: gw.mock.url, models: FIXED_MODEL });
  });

  /** An organization with a funded wallet, one member in one team, and the member's organization token. */
  async function orgWithToken(name: string, markupBp?: number) {
    const org = await insertOrg(t, name, { quota: 100_000_000, markupBp });
    const member = await createUserClient(t.app, root, `bm-${dialect.slice(0, 2)}-${++person}`);
    await insertMember(t, org.orgId, member.userId!, 'member');
    const teamId = await insertTeam(t, org.orgId, `team-${name}`, [member.userId!]);
    const token = await insertOrgToken(t, org, member.userId!, teamId);
    return { org, member, teamId, token };
  }

  const cases: { level: BudgetLevel; period: BudgetPeriod }[] = [
    { level: 'org', period: 'day' },
    { level: 'team', period: 'week' },
    { level: 'member', period: 'month' },
    { level: 'token', period: 'total' },
    { level: 'tag', period: 'day' },
  ];

  it.each(cases)(
    'a hard $level budget ($period) serves exactly floor(limit / price) of 100 concurrent calls',
    async ({ level, period }) => {
      const { org, member, teamId, token } = await orgWithToken(`hard-${level}`);
      const target_id = { org: 0, tag: 0, team: teamId, member: member.userId!, token: token.id }[level];
      const b = await createBudget(root, org.orgId, {
        level,
        target_id,
        tag: level === 'tag' ? 'proj_a' : '',
        period,
        limit_quota: LIMIT,
      });
      const headers: Record<string, string> = level === 'tag' ? { 'x-tollway-tags': 'proj_a' } : {};
      const at = Date.now();
      const { statuses, bodies, retryAfter } = await concurrently(CALLS, () => taggedCall(base, token.key, headers));
      const served = Math.floor(LIMIT / PER_CALL);
      expect(statuses.filter((s) => s === 200)).toHaveLength(served);
      const refusedStatus = period === 'total' ? 403 : 429;
      expect(statuses.filter((s) => s === refusedStatus)).toHaveLength(CALLS - served);
      const refusal = bodies[statuses.indexOf(refusedStatus)] as OpenAIError;
      expect(refusal.error.code).toBe('budget_exceeded');
      expect(refusal.error.message).toContain(`${period} budget of this`);
      const ra = retryAfter[statuses.indexOf(refusedStatus)];
      if (period === 'total') expect(ra).toBeNull();
      else expect(Number(ra)).toBeLessThanOrEqual(Math.ceil((periodEnd(period, at) - at) / 1000) + 1);
      // The charges never pass the limit; the logs say whose calls they were.
      expect(await spent(t, org.walletUserId)).toBe(served * PER_CALL);
      const logs = await consumeLogs(t, org.walletUserId);
      for (const r of logs) {
        expect(Number(r.member_id)).toBe(member.userId);
        expect(Number(r.team_id)).toBe(teamId);
        expect(r.tags).toBe(level === 'tag' ? ',proj_a,' : '');
        expect(Number(r.billed_quota)).toBe(0);
      }
      // The view counts what was charged; the same budget refuses in Claude's shape too.
      const view = (
        await root.call<{ id: number; used_quota: number; remaining_quota: number }[]>(
          'GET',
          `/api/org/${org.orgId}/budgets`,
        )
      ).body.data!;
      expect(view.find((v) => v.id === b.id)).toMatchObject({
        used_quota: served * PER_CALL,
        remaining_quota: LIMIT - served * PER_CALL,
      });
      if (level !== 'tag') {
        const claude = await claudeCall(base, token.key);
        expect(claude.status).toBe(refusedStatus);
        expect(await claude.json()).toMatchObject({ type: 'error' });
      }
    },
  );

  it('a tag budget leaves untagged calls and other tags alone', async () => {
    const { org, token } = await orgWithToken('tag-other');
    await createBudget(root, org.orgId, { level: 'tag', tag: 'only', period: 'day', limit_quota: PER_CALL });
    expect((await taggedCall(base, token.key, { 'x-tollway-tags': 'only' })).status).toBe(200);
    expect((await taggedCall(base, token.key, { 'x-tollway-tags': 'only,x' })).status).toBe(429);
    expect((await taggedCall(base, token.key, { 'x-tollway-tags': 'x' })).status).toBe(200);
    expect((await taggedCall(base, token.key)).status).toBe(200);
  });

  it('every surface logs the attribution: OpenAI chat and embeddings, Claude, Gemini, with the tags header', async () => {
    const { org, member, teamId, token } = await orgWithToken('surfaces');
    const tags = { 'x-tollway-tags': 'team_x,run:1' };
    const post = (path: string, body: object, auth: Record<string, string>) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...tags },
        body: JSON.stringify(body),
      });
    const bearer = { authorization: `Bearer ${token.key}` };
    const messages = [{ role: 'user', content: 'attribute me' }];
    const answers = await Promise.all([
      post('/v1/chat/completions', { model: FIXED_MODEL, max_tokens: 20, messages }, bearer),
      post('/v1/embeddings', { model: FIXED_MODEL, input: 'attribute me' }, bearer),
      post(
        '/v1/messages',
        { model: FIXED_MODEL, max_tokens: 20, messages },
        { 'x-api-key': token.key, 'anthropic-version': '2023-06-01' },
      ),
      post(
        `/v1beta/models/${FIXED_MODEL}:generateContent`,
        { contents: [{ role: 'user', parts: [{ text: 'attribute me' }] }] },
        { 'x-goog-api-key': token.key },
      ),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const logs = await consumeLogs(t, org.walletUserId);
    expect(logs).toHaveLength(4);
    for (const r of logs)
      expect([Number(r.member_id), Number(r.team_id), r.tags, Number(r.token_id)]).toEqual([
        member.userId,
        teamId,
        ',team_x,run:1,',
        token.id,
      ]);
  });

  it("a reseller organization's calls log its price beside the system's", async () => {
    const { org, token } = await orgWithToken('reseller', 1_500);
    expect((await taggedCall(base, token.key)).status).toBe(200);
    const [row] = await consumeLogs(t, org.walletUserId);
    expect(Number(row!.quota)).toBe(PER_CALL);
    expect(Number(row!.billed_quota)).toBe(markedUp(PER_CALL, 1_500));
  });

  it('budgets are managed by budgets.manage, read by org.read, and only on the organization’s own targets', async () => {
    const { org, member, teamId } = await orgWithToken('manage');
    const other = await orgWithToken('manage-other');
    const admin = await createUserClient(t.app, root, `ba-${dialect.slice(0, 2)}`);
    await insertMember(t, org.orgId, admin.userId!, 'admin');
    const b = await createBudget(admin, org.orgId, {
      level: 'team',
      target_id: teamId,
      period: 'day',
      limit_quota: 10,
    });
    expect(b).toMatchObject({ level: 'team', target_id: teamId, target_name: `team-manage`, used_quota: 0 });
    // A member reads, and may not write.
    expect((await member.call('GET', `/api/org/${org.orgId}/budgets`)).body.success).toBe(true);
    const denied = await member.call('POST', `/api/org/${org.orgId}/budgets`, {
      level: 'org',
      period: 'day',
      limit_quota: 10,
    });
    expect(denied.body).toMatchObject({ success: false, code: 'org_forbidden' });
    // Another organization's team, member or token is no target; another organization's budget is not found.
    for (const [level, target_id] of [
      ['team', other.teamId],
      ['member', other.member.userId!],
      ['token', other.token.id],
    ] as const) {
      const res = await admin.call('POST', `/api/org/${org.orgId}/budgets`, {
        level,
        target_id,
        period: 'day',
        limit_quota: 10,
      });
      expect(res.body).toMatchObject({ success: false, code: 'budget_target_invalid', params: { level } });
    }
    const foreign = await createBudget(root, other.org.orgId, { level: 'org', period: 'day', limit_quota: 10 });
    const put = await admin.call('PUT', `/api/org/${org.orgId}/budgets/${foreign.id}`, {
      level: 'org',
      period: 'day',
      limit_quota: 20,
    });
    expect(put.body).toMatchObject({ success: false, code: 'budget_not_found' });
    const changed = await admin.call<{ limit_quota: number; hard: boolean }>(
      'PUT',
      `/api/org/${org.orgId}/budgets/${b.id}`,
      { level: 'team', target_id: teamId, period: 'day', limit_quota: 99, hard: false },
    );
    expect(changed.body.data).toMatchObject({ limit_quota: 99, hard: false });
    expect((await admin.call('DELETE', `/api/org/${org.orgId}/budgets/${b.id}`)).body.success).toBe(true);
    expect((await admin.call('DELETE', `/api/org/${org.orgId}/budgets/${b.id}`)).body).toMatchObject({
      code: 'budget_not_found',
    });
  });

  it('a budget created after the token was cached applies to its next call', async () => {
    const { org, token } = await orgWithToken('late');
    expect((await taggedCall(base, token.key)).status).toBe(200);
    await createBudget(root, org.orgId, { level: 'org', period: 'day', limit_quota: 2 * PER_CALL });
    // Seeded from the logs: the call before the budget counts in its day.
    expect((await taggedCall(base, token.key)).status).toBe(200);
    expect((await taggedCall(base, token.key)).status).toBe(429);
  });
});
