import {
  ErrorCode,
  orgCan,
  SPEND_EXPORT_ROWS_MAX,
  SPEND_RANGE_MAX,
  tagsOfColumn,
  type OrgLogQuery,
  type OrgLogRow,
  type Page,
  type SpendQuery,
  type SpendReport,
} from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { readPage } from '../../db/paging.js';
import { coded } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import { toUserLog } from '../logs/view.js';
import type { OrgAccess } from '../organizations/access.js';
import { billedOf, exportCsv } from './export.js';
import { SpendLabels } from './labels.js';
import { SPEND_TAG_SETS_MAX, spendReportOf, type ReportOrg } from './report.js';
import { OrgSpendStore, type SpendScope } from './store.js';

const DAY_SECONDS = 86_400;

/** A download of an organization's calls: its file name, the rows it holds and whether there were more. */
export interface SpendExport {
  filename: string;
  rows: number;
  truncated: boolean;
  lines: AsyncIterable<string>;
}

/**
 * An organization's spend as its members may see it (docs/operating/spend.md): its consume logs, breakdowns and the
 * CSV export. Every route passes requireOrg (org.read, declared with the route); a role without spend.all sees only the caller's own calls,
 * enforced in the query.
 */
export class OrgSpendService {
  readonly store: OrgSpendStore;
  private readonly labels: SpendLabels;
  /** The rows an export holds at most (SPEND_EXPORT_ROWS_MAX; a test may lower it). */
  exportRowsMax = SPEND_EXPORT_ROWS_MAX;
  /** The tag sets a tag breakdown reads one by one (SPEND_TAG_SETS_MAX; a test may lower it). */
  tagSetsMax = SPEND_TAG_SETS_MAX;

  constructor(deps: Pick<AppContext, 'db' | 'logDb'>) {
    this.store = new OrgSpendStore(deps.logDb);
    this.labels = new SpendLabels(deps.db);
  }

  /** The organization and the scope of what the caller may read of it. */
  private visible(access: OrgAccess, user: AuthUser): { org: ReportOrg; scope: SpendScope; billedOnly: boolean } {
    const org = { id: access.org.id, walletUserId: access.org.wallet_user_id };
    const all = orgCan(access.role, 'spend.all');
    // A reseller's member sees its prices only: the system's price (and so the margin) is for those who see all.
    const billedOnly = !all && Number(access.org.reseller) === 1;
    return { org, scope: { walletUserId: org.walletUserId, ...(all ? {} : { ownMemberId: user.id }) }, billedOnly };
  }

  /** The organization's calls, newest first, each with whom and what it is attributed to. */
  async logs(access: OrgAccess, user: AuthUser, q: OrgLogQuery): Promise<Page<OrgLogRow>> {
    const { org, scope, billedOnly } = this.visible(access, user);
    const page = await readPage(q, (w) =>
      this.store.page(
        {
          ...scope,
          start: q.start_timestamp,
          end: q.end_timestamp,
          member_id: q.member_id,
          team_id: q.team_id,
          token_id: q.token_id,
          token_name: q.token_name,
          model_name: q.model_name,
          tag: q.tag,
        },
        w,
      ),
    );
    const [members, teams] = await Promise.all([
      this.labels.usernames(page.items.map((r) => r.member_id)),
      this.labels.teams(org.id),
    ]);
    const items = page.items.map((r): OrgLogRow => {
      const { channel: _c, channel_name: _n, ip: _i, ...row } = toUserLog(r, false);
      const quota = Number(r.quota);
      const billed = billedOf(quota, Number(r.billed_quota));
      return {
        ...row,
        ...(billedOnly ? { quota: billed } : {}),
        member_id: r.member_id,
        member_name: members.get(r.member_id) ?? '',
        team_id: r.team_id,
        team_name: teams.get(r.team_id) ?? '',
        tags: tagsOfColumn(r.tags),
        billed_quota: billed,
      };
    });
    return { ...page, items };
  }

  /** The breakdown of a range by one dimension, with the total. */
  async report(access: OrgAccess, user: AuthUser, q: SpendQuery): Promise<SpendReport> {
    const { org, scope, billedOnly } = this.visible(access, user);
    const report = await spendReportOf(
      this.store,
      this.labels,
      org,
      this.spendScope(scope, q),
      q.group_by,
      this.tagSetsMax,
    );
    if (!billedOnly) return report;
    return {
      ...report,
      rows: report.rows.map((r) => ({ ...r, quota: r.billed_quota })),
      total: { ...report.total, quota: report.total.billed_quota },
    };
  }

  /** The calls of a range as CSV lines (read page by page as they are sent), at most exportRowsMax. */
  async export(access: OrgAccess, user: AuthUser, q: SpendQuery): Promise<SpendExport> {
    const { org, scope, billedOnly } = this.visible(access, user);
    const s = this.spendScope(scope, q);
    const count = await this.store.count(s);
    const rowsMax = this.exportRowsMax;
    return {
      filename: `org-${org.id}-spend-${q.start_timestamp}-${q.end_timestamp}.csv`,
      rows: Math.min(count, rowsMax),
      truncated: count > rowsMax,
      lines: exportCsv(this.store, this.labels, org, s, rowsMax, billedOnly),
    };
  }

  /** A spend query's scope: a range of at most SPEND_RANGE_MAX (inclusive bounds) and the filters. */
  private spendScope(scope: SpendScope, q: SpendQuery): SpendScope {
    const start = q.start_timestamp;
    const end = q.end_timestamp;
    if (end < start || end - start > SPEND_RANGE_MAX)
      throw coded(
        ErrorCode.SpendRangeInvalid,
        `the time range is invalid (at most ${SPEND_RANGE_MAX / DAY_SECONDS} days)`,
        {
          max_days: SPEND_RANGE_MAX / DAY_SECONDS,
        },
      );
    return {
      ...scope,
      start,
      end,
      member_id: q.member_id,
      team_id: q.team_id,
      token_id: q.token_id,
      model_name: q.model_name,
      tag: q.tag,
    };
  }
}

export const orgSpendOf = perContext((ctx) => new OrgSpendService(ctx));
