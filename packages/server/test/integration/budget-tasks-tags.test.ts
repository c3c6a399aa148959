import { ChannelType, LogType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import { insertMember, insertOrg, insertOrgToken, insertTeam } from '../support/org-rows.js';

/** A task submission (Suno) by an organization token: its consume log carries member, team and the header's tags. */
describe.each(dialects)('spend tags on task submissions (%s)', (dialect) => {
  const gw = useGateway<MockSuno>(dialect, { user: 'tag-task-user', mock: startMockSuno }, async (g) => {
    await addChannel(g.root, {
      name: 'suno',
      key: MOCK_SUNO_KEY,
      baseUrl: g.mock.url,
      models: 'suno_music',
      type: ChannelType.SunoAPI,
    });
    await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ suno_music: 0.1 }) });
  });

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
});
