import { Readable } from 'node:stream';
import {
  orgIdParam,
  orgLogQuery,
  orgLogRow,
  paged,
  SPEND_EXPORT_ROWS_MAX,
  spendQuery,
  spendReport,
} from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { addOrgRoute } from '../organizations/org-route.js';
import { orgSpendOf } from './service.js';

/**
 * An organization's spend (docs/operating/spend.md): its calls, their breakdown and the CSV export. Every route
 * passes requireOrg (org.read); without spend.all a member reads only their own calls.
 */
export function orgSpendRoutes(r: Router): void {
  const tags = ['organizations'];
  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id/logs',
    need: 'org.read',
    summary:
      "The organization's consume logs, newest first, with member, team, tags and billed_quota (filters: time range, model, token, member, team, tag); a member sees only their own",
    tags,
    params: orgIdParam,
    query: orgLogQuery,
    response: paged(orgLogRow),
    handler: ({ ctx, user, query, access }) => orgSpendOf(ctx).logs(access, user!, query),
  });
  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id/spend',
    need: 'org.read',
    summary:
      'Spend of a range grouped by team, member, token, model, tag (a call counts under each of its tags) or day (server time zone), with the total; a member sees only their own',
    tags,
    params: orgIdParam,
    query: spendQuery,
    response: spendReport,
    handler: ({ ctx, user, query, access }) => orgSpendOf(ctx).report(access, user!, query),
  });
  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id/spend/export',
    need: 'org.read',
    summary: `The calls of a range as a CSV download (text/csv, one line per call, newest first, at most ${SPEND_EXPORT_ROWS_MAX} lines; x-tollway-export-truncated: 1 when there were more); a member gets only their own`,
    tags,
    params: orgIdParam,
    query: spendQuery,
    raw: true,
    handler: async ({ ctx, user, query, reply, access }) => {
      const out = await orgSpendOf(ctx).export(access, user!, query);
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${out.filename}"`)
        .header('cache-control', 'no-store')
        .header('x-tollway-export-rows', String(out.rows))
        .header('x-tollway-export-truncated', out.truncated ? '1' : '0');
      return reply.send(Readable.from(out.lines));
    },
  });
}
