import { tagsOfColumn, type SpendDimension, type SpendReport, type SpendRow } from '@tollway/shared';
import { dayIn } from '../../lib/time.js';
import type { SpendLabels } from './labels.js';
import type { GroupKey, GroupRow, OrgSpendStore, SpendScope, SumsRow } from './store.js';

type Sums = SpendReport['total'];

/**
 * Tag sets read for a tag breakdown, most spent first. Tags are the callers' words: each distinct set is one group
 * in the database, so a range holding more sets than this answers the rest as one OTHER_TAGS_KEY row (its sums are
 * exact: the total less the sets read), and the tags held in memory are at most this × TAGS_MAX.
 */
export const SPEND_TAG_SETS_MAX = 2000;
/** The key of the calls whose tag sets were not read one by one (not a tag: `*` is outside TAG_PATTERN). */
export const OTHER_TAGS_KEY = '*';

const zero = (): Sums => ({ quota: 0, billed_quota: 0, requests: 0, prompt_tokens: 0, completion_tokens: 0 });

export function sumsOf(r: SumsRow): Sums {
  return {
    quota: Number(r.quota ?? 0),
    billed_quota: Number(r.billed_quota ?? 0),
    requests: Number(r.requests),
    prompt_tokens: Number(r.prompt_tokens ?? 0),
    completion_tokens: Number(r.completion_tokens ?? 0),
  };
}

function add(into: Sums, s: Sums): void {
  into.quota += s.quota;
  into.billed_quota += s.billed_quota;
  into.requests += s.requests;
  into.prompt_tokens += s.prompt_tokens;
  into.completion_tokens += s.completion_tokens;
}

const minus = (a: Sums, b: Sums): Sums => ({
  quota: a.quota - b.quota,
  billed_quota: a.billed_quota - b.billed_quota,
  requests: a.requests - b.requests,
  prompt_tokens: a.prompt_tokens - b.prompt_tokens,
  completion_tokens: a.completion_tokens - b.completion_tokens,
});

/** Sums per key, in first-seen order. */
class Groups {
  readonly rows = new Map<string, Sums>();
  add(key: string, s: Sums): void {
    let g = this.rows.get(key);
    if (!g) this.rows.set(key, (g = zero()));
    add(g, s);
  }
}

const GROUP_KEY: Record<Exclude<SpendDimension, 'tag' | 'day'>, GroupKey> = {
  team: 'team_id',
  member: 'member_id',
  token: 'token_id',
  model: 'model_name',
};

/** The organization whose calls a report covers. */
export interface ReportOrg {
  id: number;
  walletUserId: number;
}

/**
 * A breakdown of the calls in `scope` by one dimension, with names for people and the total. Team, member, token
 * and model rows partition the calls (they sum to the total); a call with several tags counts under each of them
 * (tag rows may sum to more than the total; untagged calls are the row with key ''); days are the server's time
 * zone's calendar days (YYYY-MM-DD), oldest first. Other rows: most spent first.
 */
export async function spendReportOf(
  store: OrgSpendStore,
  labels: SpendLabels,
  org: ReportOrg,
  scope: SpendScope,
  groupBy: SpendDimension,
  tagSetsMax = SPEND_TAG_SETS_MAX,
): Promise<SpendReport> {
  const [totalRow, grouped] = await Promise.all([
    store.totals(scope),
    groupBy === 'tag'
      ? store.grouped(scope, 'tags', tagSetsMax)
      : store.grouped(scope, groupBy === 'day' ? 'day_bucket' : GROUP_KEY[groupBy]),
  ]);
  const total = sumsOf(totalRow);
  const groups = new Groups();
  if (groupBy === 'tag') {
    const read = zero();
    for (const r of grouped) {
      const s = sumsOf(r);
      add(read, s);
      const tags = tagsOfColumn(String(r.k));
      if (tags.length === 0) groups.add('', s);
      for (const tag of tags) groups.add(tag, s);
    }
    const rest = minus(total, read);
    if (grouped.length >= tagSetsMax && rest.requests > 0) groups.add(OTHER_TAGS_KEY, rest);
  } else if (groupBy === 'day') {
    for (const r of grouped) groups.add(dayIn('', new Date(Number(r.k) * 1000)), sumsOf(r));
  } else {
    for (const r of grouped) groups.add(String(r.k), sumsOf(r));
  }
  const label = await labelsFor(labels, org, groupBy, grouped);
  const rows: SpendRow[] = [...groups.rows].map(([key, s]) => ({ key, label: label(key), ...s }));
  if (groupBy === 'day') rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  else rows.sort((a, b) => b.quota - a.quota || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { group_by: groupBy, rows, total };
}

/** The label of each key: a team's, member's or token's name ('' for id 0, `#id` for one since deleted). */
async function labelsFor(
  labels: SpendLabels,
  org: ReportOrg,
  groupBy: SpendDimension,
  grouped: GroupRow[],
): Promise<(key: string) => string> {
  const ids = grouped.map((r) => Number(r.k));
  const named = (names: Map<number, string>, fallback?: Map<number, string>) => (key: string) => {
    const id = Number(key);
    if (id === 0) return '';
    return names.get(id) ?? fallback?.get(id) ?? `#${id}`;
  };
  if (groupBy === 'team') return named(await labels.teams(org.id));
  if (groupBy === 'member') return named(await labels.usernames(ids));
  if (groupBy === 'token') {
    const logged = new Map(grouped.map((r) => [Number(r.k), r.name ?? '']));
    return named(await labels.tokens(org.walletUserId, ids), logged);
  }
  return (key) => key;
}
