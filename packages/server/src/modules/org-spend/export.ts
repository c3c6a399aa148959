import { tagsOfColumn } from '@tollway/shared';
import { csvLine, UTF8_BOM } from './csv.js';
import type { SpendLabels } from './labels.js';
import type { ReportOrg } from './report.js';
import type { ExportCursor, ExportRecord, OrgSpendStore, SpendScope } from './store.js';

/** Rows read from the database per page of an export (an export is never held whole in memory). */
export const EXPORT_PAGE_ROWS = 1000;

/** The export's columns, in order (docs/operating/spend.md). */
export const EXPORT_HEADER = [
  'time',
  'member_id',
  'member',
  'team_id',
  'team',
  'token_id',
  'token',
  'model',
  'tags',
  'prompt_tokens',
  'completion_tokens',
  'quota',
  'billed_quota',
  'request_id',
] as const;

/** What a call is billed at: a reseller's price when one was recorded, its charge otherwise. */
export const billedOf = (quota: number, billed: number): number => (billed > 0 ? billed : quota);

/**
 * The CSV of the calls in `scope`, newest first, at most `rowsMax` of them, read page by page (keyset on
 * created_at, id) and written as each page arrives. Member names are looked up per page for the members not met yet.
 */
export async function* exportCsv(
  store: OrgSpendStore,
  labels: SpendLabels,
  org: ReportOrg,
  scope: SpendScope,
  rowsMax: number,
  /** The member's price in both columns (a reseller's member does not see the system's price). */
  billedOnly = false,
): AsyncGenerator<string> {
  yield UTF8_BOM + csvLine(EXPORT_HEADER);
  const teams = await labels.teams(org.id);
  const members = new Map<number, string>();
  let left = rowsMax;
  let after: ExportCursor | undefined;
  while (left > 0) {
    const rows = await store.exportPage(scope, after, Math.min(EXPORT_PAGE_ROWS, left));
    if (rows.length === 0) return;
    const unknown = rows.map((r) => r.member_id).filter((id) => id > 0 && !members.has(id));
    for (const [id, name] of await labels.usernames(unknown)) members.set(id, name);
    yield rows.map((r) => csvLine(cellsOf(r, members, teams, billedOnly))).join('');
    left -= rows.length;
    const last = rows[rows.length - 1]!;
    after = { created_at: Number(last.created_at), id: Number(last.id) };
  }
}

function cellsOf(
  r: ExportRecord,
  members: Map<number, string>,
  teams: Map<number, string>,
  billedOnly: boolean,
): (string | number)[] {
  const billed = billedOf(Number(r.quota), Number(r.billed_quota));
  const quota = billedOnly ? billed : Number(r.quota);
  return [
    new Date(Number(r.created_at) * 1000).toISOString(),
    r.member_id,
    members.get(r.member_id) ?? '',
    r.team_id,
    teams.get(r.team_id) ?? '',
    r.token_id,
    r.token_name,
    r.model_name,
    tagsOfColumn(r.tags).join(';'),
    r.prompt_tokens,
    r.completion_tokens,
    quota,
    billed,
    r.request_id,
  ];
}
