import { sql, type SelectQueryBuilder } from 'kysely';

/** The rows of one page and how many rows match in all. */
export interface Slice<T> {
  items: T[];
  total: number;
}

/** Which rows of a listing to read. */
export interface RowWindow {
  offset: number;
  limit: number;
}

/** A query with its selection and order (joins allowed), ready to be bounded. */
interface Bounded<O> {
  limit(n: number): { offset(n: number): { execute(): Promise<O[]> } };
}

/**
 * One page of `base` (the table and its WHERE clause) and the count of every matching row, read together:
 * `rows` adds the selection and the order, the window bounds it.
 */
export async function selectPage<DB, TB extends keyof DB, O>(
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Kysely's type of a query with no selection yet
  base: SelectQueryBuilder<DB, TB, {}>,
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- as above
  rows: (q: SelectQueryBuilder<DB, TB, {}>) => Bounded<O>,
  window: RowWindow,
): Promise<Slice<O>> {
  const [items, count] = await Promise.all([
    rows(base).limit(window.limit).offset(window.offset).execute(),
    base.select(sql<number | string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number((count as { n: number | string }).n) };
}
