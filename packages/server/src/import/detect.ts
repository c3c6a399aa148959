/** Which product wrote the source database, and roughly which version, from its tables and columns. */
export interface SourceKind {
  product: 'new-api' | 'one-api';
  /** Human description of the version range the schema matches. */
  version: string;
}

type Tables = Map<string, Set<string>>;

const has = (tables: Tables, table: string, column?: string) =>
  column ? (tables.get(table)?.has(column) ?? false) : tables.has(table);

/** Tables only new-api has; one-api has none of them. */
const NEW_API_TABLES = ['tasks', 'setups', 'quota_data', 'two_fas', 'vendors', 'prefill_groups'];

/** Schema features of new-api, newest first, with the release that added each (a rough version). */
const NEW_API_FEATURES: [table: string, column: string | undefined, since: string][] = [
  ['tokens', 'billing_type', '0.10 or later (subscriptions)'],
  ['tasks', 'private_data', '0.9 or later (public task ids)'],
  ['channels', 'channel_info', '0.8.6 or later (multi-key channels)'],
  ['users', 'stripe_customer', '0.6 or later'],
  ['users', 'setting', '0.4 or later'],
];

/** Detects new-api or one-api; throws when neither schema is there. */
export function detectSource(tables: Tables): SourceKind {
  for (const t of ['users', 'tokens', 'channels']) {
    if (!has(tables, t))
      throw new Error(`--from: the database has no "${t}" table; it is not a new-api or one-api database`);
  }
  const newApi =
    NEW_API_TABLES.some((t) => has(tables, t)) ||
    has(tables, 'users', 'setting') ||
    has(tables, 'users', 'linux_do_id');
  if (!newApi) {
    const version = has(tables, 'users', 'lark_id')
      ? '0.6.x (Lark sign-in)'
      : has(tables, 'channels', 'config')
        ? '0.5.x or later'
        : 'an early release';
    return { product: 'one-api', version };
  }
  const hit = NEW_API_FEATURES.find(([t, c]) => has(tables, t, c));
  return { product: 'new-api', version: hit ? hit[2] : 'before 0.4' };
}
