import { ChannelType, LogType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { periodLimitsOf } from '../../src/core/period-limits/service.js';
import { applyTaskState } from '../../src/relay/tasks/refund.js';
import { taskById } from '../../src/relay/tasks/store.js';
import { TaskStatus } from '../../src/relay/tasks/types.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import { insertMember, insertOrg, insertOrgToken, insertTeam } from '../support/org-rows.js';

/** A task submission (Suno) by an organization token: its consume log carries member, team and the header's tags. */
describe.each(dialects)('spend tags on task submissions (%s)', (dialect) => {
  const gw = useGateway<MockSuno>(
    dialect,
    { user: 'tag-task-user', users: ['refund-member'], mock: startMockSuno },
    async (g) => {
      await addChannel(g.root, {
        name: 'suno',
        key: MOCK_SUNO_KEY,
        baseUrl: g.mock.url,
        models: 'suno_music',
        type: ChannelType.SunoAPI,
      });
      await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ suno_music: 0.1 }) });
    },
  );

  it('an organization task logs its attribution; bad tags are refused before anything is charged', async () => {
    const org = await insertOrg(gw.t, 'task-tags', { quota: 10_000_000 });
    const memberId = gw.user.userId!;
    await insertMember(gw.t, org.orgId, memberId, 'member');
    const teamId = await insertTeam(gw.t, org.orgId, 'task-team', [memberId]);
    const token = await insertOrgToken(gw.t, org, memberId, teamId);
    const submit = (tags: string) =>
      fetch(`${gw.base}/suno/submit/music`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.key}`, 'content-type': 'application/json', 'x-tollway-tags': tags },
        body: JSON.stringify({ prompt: 'a tagged song', tags: 'folk' }),
      });
    expect((await submit('album:7,promo')).status).toBe(200);
    const bad = await submit('no spaces please');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('tags');
    await drainWriter(gw.t);
    const logs = await gw.t.runtime.ctx.logDb.kysely
      .selectFrom('logs')
      .select(['member_id', 'team_id', 'tags', 'token_id'])
      .where('user_id', '=', org.walletUserId)
      .where('type', '=', LogType.Consume)
      .execute();
    expect(logs.map((r) => [Number(r.member_id), Number(r.team_id), r.tags, Number(r.token_id)])).toEqual([
      [memberId, teamId, ',album:7,promo,', token.id],
    ]);
  });

  it("a failed task's refund gives its share back to the budgets and period limits it counted in", async () => {
    const org = await insertOrg(gw.t, 'task-refund', { quota: 10_000_000 });
    const memberId = gw.users[0]!.userId!;
    await insertMember(gw.t, org.orgId, memberId, 'member');
    const teamId = await insertTeam(gw.t, org.orgId, 'refund-team', [memberId]);
    const token = await insertOrgToken(gw.t, org, memberId, teamId, 'refund-token');
    const db = gw.t.database.db.kysely;
    await db.updateTable('tokens').set({ quota_per_day: 10_000_000 }).where('id', '=', token.id).execute();
    for (const [level, target_id, tag] of [
      ['team', teamId, ''],
      ['tag', 0, 'refundable'],
    ] as const) {
      const res = await gw.root.call('POST', `/api/org/${org.orgId}/budgets`, {
        level,
        target_id,
        tag,
        period: 'month',
        limit_quota: 10_000_000,
      });
      expect(res.body.success, res.body.message).toBe(true);
    }
    const used = async () => {
      const res = await gw.root.call<{ level: string; used_quota: number }[]>('GET', `/api/org/${org.orgId}/budgets`);
      return res.body.data!.map((b) => [b.level, b.used_quota]);
    };
    const tokenUsed = async () => {
      const limits = await periodLimitsOf(gw.t.runtime.ctx).remaining({
        tokenId: token.id,
        userId: org.walletUserId,
        token: { day: 10_000_000, week: 0, month: 0, fiveHours: 0, requestsPerDay: 0 },
        user: undefined,
      });
      return limits.map((l) => l.used);
    };
    const res = await fetch(`${gw.base}/suno/submit/music`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token.key}`,
        'content-type': 'application/json',
        'x-tollway-tags': 'refundable',
      },
      body: JSON.stringify({ prompt: 'a song that fails', tags: 'folk' }),
    });
    expect(res.status).toBe(200);
    await drainWriter(gw.t);
    const row = await db
      .selectFrom('tasks')
      .select('id')
      .where('user_id', '=', org.walletUserId)
      .executeTakeFirstOrThrow();
    const task = (await taskById(gw.t.database.db, 'tasks', Number(row.id)))!;
    const price = task.quota;
    expect(price).toBeGreaterThan(0);
    expect(await used()).toEqual([
      ['team', price],
      ['tag', price],
    ]);
    expect(await tokenUsed()).toEqual([price]);

    const failure = { upstreamTaskId: task.upstreamTaskId, status: TaskStatus.Failure, failReason: 'it failed' };
    expect(await applyTaskState(gw.t.runtime.ctx, task, failure)).toBe(true);
    expect(await used()).toEqual([
      ['team', 0],
      ['tag', 0],
    ]);
    expect(await tokenUsed()).toEqual([0]);
  });
});
