import type { Expression, ExpressionBuilder, Kysely, SqlBool, Transaction } from 'kysely';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { Database } from '../../db/schema.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { ChannelRow } from '../../core/routing/channel-row.js';

export type NewChannel = Omit<ChannelRow, 'id'>;
export type ChannelPatch = Partial<NewChannel>;
/** The database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface ChannelFilter {
  keyword?: string;
  group?: string;
  model?: string;
  type?: number;
  status?: 'all' | 'enabled' | 'disabled' | '';
  /** Channels the keyword named by their whole key (root's lookup, see key-lookup.ts): matched by id. */
  keyIds?: number[];
}

export type ChannelOrder = 'id' | 'priority';

type Eb = ExpressionBuilder<Database, 'channels'>;

/**
 * Conditions of a list or search filter (keyword: part of the name, tag or base URL, or the id; group: exact
 * member; model: part of the list). Keys are never matched here: a key is found only by its whole value, by
 * root, through keyIds. The caller's text is literal (db/like.ts).
 */
function conditions(eb: Eb, f: ChannelFilter): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (f.type) out.push(eb('type', '=', f.type));
  if (f.status === 'enabled') out.push(eb('status', '=', 1));
  if (f.status === 'disabled') out.push(eb('status', '!=', 1));
  if (f.keyword) {
    const kw = f.keyword.toLowerCase();
    const either: Expression<SqlBool>[] = [
      likeText(eb.fn('lower', ['name']), kw),
      likeText(eb.fn('lower', ['tag']), kw),
      likeText(eb.fn('lower', ['base_url']), kw),
    ];
    if (/^\d{1,9}$/.test(f.keyword)) either.push(eb('id', '=', Number(f.keyword)));
    if (f.keyIds?.length) either.push(eb('id', 'in', f.keyIds));
    out.push(eb.or(either));
  }
  if (f.group) {
    const g = f.group;
    out.push(
      eb.or([
        eb('group', '=', g),
        likeText('group', `${g},`, 'starts'),
        likeText('group', `,${g}`, 'ends'),
        likeText('group', `,${g},`),
      ]),
    );
  }
  if (f.model) out.push(likeText('models', f.model));
  return out;
}

/**
 * SQL for the channels table. Ability rows are written by abilities.ts in the same transaction. Keys are sealed
 * with CRYPTO_SECRET on the way in and opened on the way out: callers only see plaintext keys.
 */
export class ChannelsStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  private open = (row: ChannelRow): ChannelRow => ({ ...row, key: this.box.open(row.key) });
  private openAll = (rows: ChannelRow[]): ChannelRow[] => rows.map(this.open);
  private openOne = (row: ChannelRow | undefined): ChannelRow | undefined => row && this.open(row);

  private sealed<T extends ChannelPatch>(patch: T): T {
    return patch.key === undefined ? patch : { ...patch, key: this.box.seal(patch.key) };
  }

  get k(): Kysely<Database> {
    return this.db.kysely;
  }

  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.k.transaction().execute(fn);
  }

  find(id: number, ex: Executor = this.k): Promise<ChannelRow | undefined> {
    return ex.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst().then(this.openOne);
  }

  /** Reads a row inside a transaction, locking it where the database can (SQLite serialises transactions). */
  findForUpdate(trx: Transaction<Database>, id: number): Promise<ChannelRow | undefined> {
    const q = trx.selectFrom('channels').selectAll().where('id', '=', id);
    return (this.db.dialect === 'sqlite' ? q : q.forUpdate()).executeTakeFirst().then(this.openOne);
  }

  findMany(ids: number[], ex: Executor = this.k): Promise<ChannelRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return ex.selectFrom('channels').selectAll().where('id', 'in', ids).execute().then(this.openAll);
  }

  findByTag(tag: string, ex: Executor = this.k): Promise<ChannelRow[]> {
    return ex.selectFrom('channels').selectAll().where('tag', '=', tag).orderBy('id').execute().then(this.openAll);
  }

  all(ex: Executor = this.k): Promise<ChannelRow[]> {
    return ex.selectFrom('channels').selectAll().orderBy('id').execute().then(this.openAll);
  }

  async insert(trx: Executor, plain: NewChannel): Promise<number> {
    const row = this.sealed(plain);
    if (this.db.dialect === 'mysql') {
      const res = await trx.insertInto('channels').values(row).executeTakeFirstOrThrow();
      return Number(res.insertId);
    }
    const res = await trx.insertInto('channels').values(row).returning('id').executeTakeFirstOrThrow();
    return res.id;
  }

  async update(ex: Executor, id: number, patch: ChannelPatch): Promise<void> {
    if (Object.keys(patch).length === 0) return;
    await ex.updateTable('channels').set(this.sealed(patch)).where('id', '=', id).execute();
  }

  async updateMany(ex: Executor, ids: number[], patch: ChannelPatch): Promise<void> {
    if (ids.length === 0 || Object.keys(patch).length === 0) return;
    await ex.updateTable('channels').set(this.sealed(patch)).where('id', 'in', ids).execute();
  }

  async deleteMany(ex: Executor, ids: number[]): Promise<number> {
    if (ids.length === 0) return 0;
    const res = await ex.deleteFrom('channels').where('id', 'in', ids).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  async idsWhereStatusNot(status: number, ex: Executor = this.k): Promise<number[]> {
    const rows = await ex.selectFrom('channels').select('id').where('status', '!=', status).execute();
    return rows.map((r) => r.id);
  }

  /** Every channel's id and key (opened): root's whole-key lookup compares them in memory. */
  async keys(): Promise<{ id: number; key: string }[]> {
    const rows = await this.k.selectFrom('channels').select(['id', 'key']).execute();
    return rows.map((r) => ({ id: r.id, key: this.box.open(r.key) }));
  }

  /** One page of channels matching the filter, ordered by id desc or by priority desc then id desc. */
  async page(f: ChannelFilter, order: ChannelOrder, window: RowWindow): Promise<Slice<ChannelRow>> {
    const base = this.k.selectFrom('channels').where((eb: Eb) => eb.and(conditions(eb, f)));
    const { items, total } = await selectPage(
      base,
      (q) =>
        order === 'id'
          ? q.selectAll().orderBy('id', 'desc')
          : q.selectAll().orderBy('priority', 'desc').orderBy('id', 'desc'),
      window,
    );
    return { items: this.openAll(items), total };
  }

  /** The few columns tag mode needs to build and order its rows, for every channel matching the filter. */
  outline(f: ChannelFilter): Promise<{ id: number; tag: string; priority: number }[]> {
    return this.k
      .selectFrom('channels')
      .select(['id', 'tag', 'priority'])
      .where((eb) => eb.and(conditions(eb, f)))
      .execute();
  }
}
