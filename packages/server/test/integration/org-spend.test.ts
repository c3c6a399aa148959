import {
  ErrorCode,
  markedUp,
  SPEND_DIMENSIONS,
  SPEND_RANGE_MAX,
  type LogRow,
  type OrgLogRow,
  type SpendDimension,
  type SpendReport,
} from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { EXPORT_HEADER, EXPORT_PAGE_ROWS } from '../../src/modules/org-spend/export.js';
import { OTHER_TAGS_KEY } from '../../src/modules/org-spend/report.js';
import { orgSpendOf } from '../../src/modules/org-spend/service.js';
import type { Client, TestApp } from '../support/app.js';
import { logDatabasePairs } from '../support/databases.js';
import { useApp, useLogDatabaseEnv } from '../support/fixture.js';
import {
  addMember,
  addOrgToken,
  addTeam,
  insertOrgCalls,
  parseCsv,
  seedOrg,
  sumOf,
  zero,
  type OrgCall,
  type SeededOrg,
} from '../support/org-spend-rows.js';
import { seeded } from '../support/seeded-random.js';

type Sums = SpendReport['total'];
type Page = { items: OrgLogRow[]; total: number };

/** 2025-11-24 12:00 UTC; the calls spread over four days after it. */
const T0 = 1_763_985_600;
const DAY = 86_400;
const START = T0 - DAY;
const END = T0 + 5 * DAY;
const MARKUP_BP = 2500;
const TAG_POOL = ['alpha', 'beta', 'g_1'];
const MODELS = ['gpt-4o', 'claude-3', '-danger\nmodel'];

const localDay = (at: number) => new Date(at * 1000).toLocaleDateString('sv-SE');
describe.each(logDatabasePairs)('organization spend (%s main, %s logs)', (mainDialect, logDialect) => {
  const env = useLogDatabaseEnv(logDialect);
  let t: TestApp, root: Client, owner: Client, viewer: Client, memberA: Client, memberA2: Client;
  let outsider: Client, memberB: Client;
  let a: SeededOrg, b: SeededOrg;
  let teams: { platform: number; research: number };
  /** Org A's consume calls in the range (what every figure must add up to). */
  const callsA: OrgCall[] = [];
  const callsB: OrgCall[] = [];

  useApp(
    mainDialect,
    { env, users: ['spend-owner', 'spend-viewer', 'spend-member', 'spend-member2', 'spend-outsider', 'spend-b'] },
    async (app) => {
      ({
        t,
        root,
        users: [owner, viewer, memberA, memberA2, outsider, memberB],
      } = app);
      const db = t.runtime.ctx.db;
      a = await seedOrg(db, 'acme', { reseller: true, markupBp: MARKUP_BP });
      b = await seedOrg(db, 'bolt');
      await addMember(db, a.id, owner.userId!, 'owner');
      await addMember(db, a.id, viewer.userId!, 'viewer');
      await addMember(db, a.id, memberA.userId!, 'member');
      await addMember(db, a.id, memberA2.userId!, 'member');
      await addMember(db, b.id, memberB.userId!, 'member');
      teams = { platform: await addTeam(db, a.id, 'platform'), research: await addTeam(db, a.id, 'research') };
      const tokens = [
        { id: await addOrgToken(db, a, '=cmd', memberA.userId!, teams.platform), name: '=cmd' },
        { id: await addOrgToken(db, a, 'r,"q"', memberA2.userId!, teams.research), name: 'r,"q"' },
        { id: await addOrgToken(db, a, 'owner-key', owner.userId!, 0), name: 'owner-key' },
      ];
      const holder = [memberA.userId!, memberA2.userId!, owner.userId!];
      const teamOf = [teams.platform, teams.research, 0];
      const random = seeded(38);
      for (let i = 0; i < 90; i++) {
        const k = Math.floor(random() * 3);
        const quota = 1 + Math.floor(random() * 5000);
        const tags = TAG_POOL.filter(() => random() < 0.45);
        callsA.push({
          at: T0 + Math.floor(random() * 4 * DAY),
          member: holder[k]!,
          team: teamOf[k]!,
          token: tokens[k]!.id,
          tokenName: tokens[k]!.name,
          model: MODELS[i % MODELS.length]!,
          tags,
          quota,
          billed: markedUp(quota, MARKUP_BP),
          prompt: 10 + i,
          completion: 2 * i,
          requestId: `req-a-${i}`,
        });
      }
      // Outside the range, another type, and org B: never in A's figures.
      const noise: OrgCall[] = [
        { ...callsA[0]!, at: START - 1, requestId: 'too-early' },
        { ...callsA[1]!, at: END + 1, requestId: 'too-late' },
        { ...callsA[2]!, type: 6, requestId: 'an-error' },
      ];
      const tokB = await addOrgToken(db, b, 'b-key', memberB.userId!, 0);
      // Org B: more calls than an export page, many at the same second (the keyset's tie on id).
      for (let i = 0; i < EXPORT_PAGE_ROWS + 150; i++)
        callsB.push({
          at: T0 + (i % 3),
          member: memberB.userId!,
          team: 0,
          token: tokB,
          tokenName: 'b-key',
          model: 'gpt-4o',
          tags: i % 2 ? ['alpha'] : [],
          quota: 7,
          requestId: `req-b-${i}`,
        });
      await insertOrgCalls(t.runtime.ctx.logDb, a, [...callsA, ...noise]);
      await insertOrgCalls(t.runtime.ctx.logDb, b, callsB);
    },
  );

  const range = `start_timestamp=${START}&end_timestamp=${END}`;
  const spend = async (c: Client, orgId: number, query: string) =>
    (await c.call<SpendReport>('GET', `/api/org/${orgId}/spend?${range}&${query}`)).body;
  const exportOf = async (c: Client, orgId: number, query = '') => {
    const res = await c.call('GET', `/api/org/${orgId}/spend/export?${range}&${query}`);
    return { res: res.raw, rows: parseCsv(res.raw.body) };
  };
  const allLogs = async (c: Client, orgId: number, query = ''): Promise<Page> => {
    const items: OrgLogRow[] = [];
    let total: number;
    for (let p = 1; ; p++) {
      const body = (await c.call<Page>('GET', `/api/org/${orgId}/logs?${range}&page_size=100&p=${p}&${query}`)).body;
      expect(body.success, body.message).toBe(true);
      items.push(...body.data!.items);
      total = body.data!.total;
      if (body.data!.items.length < 100) break;
    }
    return { items, total };
  };
  /** The export's lines as objects keyed by the header. */
  const records = (rows: string[][]) => {
    expect(rows[0]).toEqual(['\uFEFF' + EXPORT_HEADER[0], ...EXPORT_HEADER.slice(1)]);
    return rows.slice(1).map((r) => Object.fromEntries(EXPORT_HEADER.map((h, i) => [h, r[i]!])));
  };
  const csvSums = (recs: Record<string, string>[]): Sums => ({
    quota: recs.reduce((n, r) => n + Number(r.quota), 0),
    billed_quota: recs.reduce((n, r) => n + Number(r.billed_quota), 0),
    requests: recs.length,
    prompt_tokens: recs.reduce((n, r) => n + Number(r.prompt_tokens), 0),
    completion_tokens: recs.reduce((n, r) => n + Number(r.completion_tokens), 0),
  });

  it('the export, the logs and every breakdown add up to the same totals (reseller: both figures)', async () => {
    const expected = sumOf(callsA);
    expect(expected.billed_quota).toBeGreaterThan(expected.quota);
    const logs = await allLogs(viewer, a.id);
    expect(logs.total).toBe(callsA.length);
    expect(logs.items.reduce((n, r) => n + r.quota, 0)).toBe(expected.quota);
    expect(logs.items.reduce((n, r) => n + r.billed_quota, 0)).toBe(expected.billed_quota);
    const { res, rows } = await exportOf(viewer, a.id);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="org-\d+-spend-\d+-\d+\.csv"$/);
    expect(csvSums(records(rows))).toEqual(expected);

    for (const dim of SPEND_DIMENSIONS) {
      const body = await spend(viewer, a.id, `group_by=${dim}`);
      expect(body.success, `${dim} ${body.message}`).toBe(true);
      const report = body.data!;
      expect(report.group_by).toBe(dim);
      expect(report.total, dim).toEqual(expected);
      const rowSum = zero();
      for (const r of report.rows) for (const f of Object.keys(rowSum) as (keyof Sums)[]) rowSum[f] += r[f];
      if (dim !== 'tag') expect(rowSum, dim).toEqual(expected);
      const keyOf: Record<Exclude<SpendDimension, 'tag'>, (c: OrgCall) => string> = {
        team: (c) => String(c.team),
        member: (c) => String(c.member),
        token: (c) => String(c.token),
        model: (c) => c.model,
        day: (c) => localDay(c.at),
      };
      const byKey = new Map<string, OrgCall[]>();
      for (const c of callsA)
        for (const key of dim === 'tag' ? (c.tags.length ? c.tags : ['']) : [keyOf[dim](c)])
          byKey.set(key, [...(byKey.get(key) ?? []), c]);
      expect(report.rows.map((r) => r.key).sort(), dim).toEqual([...byKey.keys()].sort());
      for (const r of report.rows) {
        const { key: _k, label: _l, ...sums } = r;
        expect(sums, `${dim} ${r.key}`).toEqual(sumOf(byKey.get(r.key)!));
      }
    }
  });

  it('labels: team names, usernames, token names, days oldest first', async () => {
    const label = async (dim: SpendDimension) =>
      Object.fromEntries((await spend(owner, a.id, `group_by=${dim}`)).data!.rows.map((r) => [r.key, r.label]));
    expect(await label('team')).toEqual({ [teams.platform]: 'platform', [teams.research]: 'research', '0': '' });
    expect(await label('member')).toEqual({
      [memberA.userId!]: 'spend-member',
      [memberA2.userId!]: 'spend-member2',
      [owner.userId!]: 'spend-owner',
    });
    expect(Object.values(await label('token')).sort()).toEqual(['=cmd', 'owner-key', 'r,"q"']);
    const days = (await spend(owner, a.id, 'group_by=day')).data!.rows.map((r) => r.key);
    expect(days).toEqual([...new Set(callsA.map((c) => localDay(c.at)))].sort());
    for (const d of days) expect(d).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('filters narrow every view alike (team, member, token, model, tag with a LIKE wildcard in it)', async () => {
    const cases: [string, (c: OrgCall) => boolean][] = [
      [`team_id=${teams.research}`, (c) => c.team === teams.research],
      [`member_id=${memberA.userId}`, (c) => c.member === memberA.userId],
      [`model_name=claude-3`, (c) => c.model === 'claude-3'],
      [`token_id=${callsA[0]!.token}`, (c) => c.token === callsA[0]!.token],
      ['tag=g_1', (c) => c.tags.includes('g_1')],
      ['tag=g%25', () => false],
      ['tag=g_', () => false],
      ['tag=beta', (c) => c.tags.includes('beta')],
    ];
    for (const [query, keep] of cases) {
      const expected = sumOf(callsA.filter(keep));
      expect((await spend(viewer, a.id, `group_by=model&${query}`)).data!.total, query).toEqual(expected);
      expect((await allLogs(viewer, a.id, query)).total, query).toBe(expected.requests);
      expect(csvSums(records((await exportOf(viewer, a.id, query)).rows)), query).toEqual(expected);
    }
  });

  it('a member sees only their own calls, whatever the filters say; a viewer and a system admin see all', async () => {
    // Organization A is a reseller: its member sees its prices only, in both figures (the margin is not theirs).
    const mine = sumOf(callsA.filter((c) => c.member === memberA.userId));
    const own = { ...mine, quota: mine.billed_quota };
    expect(mine.billed_quota).toBeGreaterThan(mine.quota);
    expect((await spend(memberA, a.id, 'group_by=member')).data!.rows.map((r) => r.key)).toEqual([
      String(memberA.userId),
    ]);
    expect((await spend(memberA, a.id, 'group_by=team')).data!.total).toEqual(own);
    const logs = await allLogs(memberA, a.id);
    expect(logs.total).toBe(own.requests);
    expect(new Set(logs.items.map((r) => r.member_id))).toEqual(new Set([memberA.userId]));
    for (const r of logs.items) expect(r.quota).toBe(r.billed_quota);
    const recs = records((await exportOf(memberA, a.id)).rows);
    expect(new Set(recs.map((r) => r.member))).toEqual(new Set(['spend-member']));
    expect(csvSums(recs)).toEqual(own);
    // Asking for another member's calls finds none.
    const other = `member_id=${memberA2.userId}`;
    expect((await spend(memberA, a.id, `group_by=team&${other}`)).data!.total.requests).toBe(0);
    expect((await allLogs(memberA, a.id, other)).total).toBe(0);
    expect(records((await exportOf(memberA, a.id, other)).rows)).toEqual([]);
    expect((await spend(viewer, a.id, 'group_by=team')).data!.total).toEqual(sumOf(callsA));
    expect((await spend(root, a.id, 'group_by=team')).data!.total).toEqual(sumOf(callsA));
  });

  it("a non-member, and a member of another organization, get org_not_found (even with the organization's ids)", async () => {
    const filtersA = `member_id=${memberA.userId}&team_id=${teams.platform}`;
    const filtersB = `member_id=${memberB.userId}`;
    for (const [who, c, org, filters] of [
      ['outsider', outsider, a.id, filtersA],
      ['org B member', memberB, a.id, filtersA],
      ['org A owner', owner, b.id, filtersB],
      ['org A member', memberA, b.id, filtersB],
    ] as const)
      for (const url of [
        `/api/org/${org}/logs?${filters}`,
        `/api/org/${org}/spend?${range}&${filters}`,
        `/api/org/${org}/spend/export?${range}&${filters}`,
      ]) {
        const res = await c.call('GET', url);
        expect(res.status, `${who} ${url}`).toBe(200);
        expect(res.body, `${who} ${url}`).toMatchObject({ success: false, code: ErrorCode.OrgNotFound });
        expect(res.raw.headers['content-type']).toMatch(/^application\/json/);
      }
    // Org B's member sees their own organization's calls only.
    expect((await spend(memberB, b.id, 'group_by=member')).data!.total).toEqual(sumOf(callsB));
  });

  it('CSV cells: quotes, commas and line breaks quoted; formula starts neutralised', async () => {
    const { res, rows } = await exportOf(
      viewer,
      a.id,
      `member_id=${memberA2.userId}&model_name=${encodeURIComponent('-danger\nmodel')}`,
    );
    const recs = records(rows);
    expect(recs.length).toBe(callsA.filter((c) => c.member === memberA2.userId && c.model.startsWith('-')).length);
    expect(recs.length).toBeGreaterThan(0);
    for (const r of recs) {
      expect(r.token).toBe('r,"q"');
      expect(r.model).toBe("'-danger\nmodel");
      expect(r.team).toBe('research');
      expect(r.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
    }
    expect(res.body).toContain('"r,""q"""');
    expect(res.body).toContain(`"'-danger\nmodel"`);
    const mine = records((await exportOf(viewer, a.id, `member_id=${memberA.userId}`)).rows);
    for (const r of mine) expect(r.token).toBe("'=cmd");
    const byRequest = new Map(callsA.map((c) => [c.requestId, c]));
    for (const r of records((await exportOf(viewer, a.id)).rows)) {
      const c = byRequest.get(r.request_id)!;
      expect(r.tags, r.request_id).toBe(c.tags.join(';'));
      expect(Number(r.billed_quota), r.request_id).toBe(markedUp(c.quota, MARKUP_BP));
    }
  });

  it('past the tag sets read one by one, the other calls are one exact "*" row', async () => {
    const service = orgSpendOf(t.runtime.ctx);
    const max = service.tagSetsMax;
    service.tagSetsMax = 2;
    try {
      const report = (await spend(viewer, a.id, 'group_by=tag')).data!;
      const sets = new Map<string, OrgCall[]>();
      for (const c of callsA) sets.set(c.tags.join(','), [...(sets.get(c.tags.join(',')) ?? []), c]);
      const top = [...sets.values()]
        .map((calls) => ({ calls, quota: sumOf(calls).quota }))
        .sort((x, y) => y.quota - x.quota)
        .slice(0, 2)
        .flatMap((g) => g.calls);
      const rest = callsA.filter((c) => !top.includes(c));
      expect(rest.length).toBeGreaterThan(0);
      const { key: _k, label: _l, ...other } = report.rows.find((r) => r.key === OTHER_TAGS_KEY)!;
      expect(other).toEqual(sumOf(rest));
      expect(report.total).toEqual(sumOf(callsA));
    } finally {
      service.tagSetsMax = max;
    }
  });

  it('a range longer than SPEND_RANGE_MAX, or reversed, is refused with spend_range_invalid', async () => {
    for (const path of ['spend', 'spend/export'])
      for (const [s, e] of [
        [START, START + SPEND_RANGE_MAX + 1],
        [END, START],
      ]) {
        const res = await viewer.call('GET', `/api/org/${a.id}/${path}?start_timestamp=${s}&end_timestamp=${e}`);
        expect(res.body, path).toMatchObject({
          success: false,
          code: ErrorCode.SpendRangeInvalid,
          params: { max_days: SPEND_RANGE_MAX / DAY },
        });
      }
    const longest = await viewer.call(
      'GET',
      `/api/org/${a.id}/spend?start_timestamp=${START}&end_timestamp=${START + SPEND_RANGE_MAX}`,
    );
    expect(longest.body.success).toBe(true);
  });

  it('the export pages through the database (keyset, ties on time) and stops at its row cap', async () => {
    const full = await exportOf(memberB, b.id);
    const recs = records(full.rows);
    expect(recs.length).toBe(callsB.length);
    expect(new Set(recs.map((r) => r.request_id)).size).toBe(callsB.length);
    expect(full.res.headers['x-tollway-export-truncated']).toBe('0');
    const service = orgSpendOf(t.runtime.ctx);
    const cap = service.exportRowsMax;
    service.exportRowsMax = 5;
    try {
      const capped = await exportOf(memberB, b.id);
      expect(records(capped.rows).map((r) => r.request_id)).toEqual(recs.slice(0, 5).map((r) => r.request_id));
      expect(capped.res.headers['x-tollway-export-truncated']).toBe('1');
      expect(capped.res.headers['x-tollway-export-rows']).toBe('5');
    } finally {
      service.exportRowsMax = cap;
    }
  });

  it("system admins' log list shows billed_quota on a reseller organization's calls only", async () => {
    const list = async (username: string) =>
      (await root.call<{ items: LogRow[] }>('GET', `/api/log/?username=${username}&type=2&page_size=100`)).body.data!
        .items;
    const resold = await list(a.walletUsername);
    expect(resold.length).toBeGreaterThan(0);
    for (const r of resold) expect(r.billed_quota).toBe(markedUp(r.quota, MARKUP_BP));
    for (const r of await list(b.walletUsername)) expect(r).not.toHaveProperty('billed_quota');
  });
});
