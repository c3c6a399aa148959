import type { Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { MessagesTable } from '../../db/schema.js';

export type MessageRow = Selectable<MessagesTable>;
export type InboxRow = MessageRow & { read_at: number | null };

/** SQL for messages and their receipts. Inbox statements are scoped to the recipient. */
export class MessagesStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  private inbox(userId: number) {
    return this.k
      .selectFrom('message_recipients as r')
      .innerJoin('messages as m', 'm.id', 'r.message_id')
      .where('r.user_id', '=', userId);
  }

  /** The recipient's messages, newest first. */
  inboxPage(userId: number, window: RowWindow): Promise<Slice<InboxRow>> {
    return selectPage(this.inbox(userId), (q) => q.selectAll('m').select('r.read_at').orderBy('m.id', 'desc'), window);
  }

  async unreadCount(userId: number): Promise<number> {
    const row = await this.k
      .selectFrom('message_recipients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  inboxMessage(userId: number, messageId: number): Promise<InboxRow | undefined> {
    return this.inbox(userId).selectAll('m').select('r.read_at').where('m.id', '=', messageId).executeTakeFirst();
  }

  /** Marks the recipient's receipt read once; the first read time stays. */
  async markRead(userId: number, messageId: number, at: number): Promise<void> {
    await this.k
      .updateTable('message_recipients')
      .set({ read_at: at })
      .where('message_id', '=', messageId)
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .execute();
  }

  /** Messages for administrators, newest first, filtered by keyword (title or content) and creation time. */
  page(opts: RowWindow & { keyword?: string; from?: number; to?: number }): Promise<Slice<MessageRow>> {
    let base = this.k.selectFrom('messages');
    if (opts.keyword)
      base = base.where((eb) => eb.or([likeText('title', opts.keyword!), likeText('content', opts.keyword!)]));
    if (opts.from !== undefined) base = base.where('created_at', '>=', opts.from);
    if (opts.to !== undefined) base = base.where('created_at', '<=', opts.to);
    return selectPage(base, (q) => q.selectAll().orderBy('id', 'desc'), opts);
  }

  get(id: number): Promise<MessageRow | undefined> {
    return this.k.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Recipient and read counts per message. */
  async stats(ids: number[]): Promise<Map<number, { total_recipients: number; read_count: number }>> {
    const out = new Map<number, { total_recipients: number; read_count: number }>();
    if (ids.length === 0) return out;
    const rows = await this.k
      .selectFrom('message_recipients')
      .select((eb) => ['message_id', eb.fn.countAll<number>().as('total'), eb.fn.count<number>('read_at').as('read')])
      .where('message_id', 'in', ids)
      .groupBy('message_id')
      .execute();
    for (const r of rows)
      out.set(Number(r.message_id), { total_recipients: Number(r.total), read_count: Number(r.read) });
    return out;
  }

  /** The recipients of a message with their names, a page at a time, in user id order. */
  recipients(messageId: number, window: RowWindow) {
    const base = this.k.selectFrom('message_recipients as r').where('r.message_id', '=', messageId);
    return selectPage(
      base,
      (q) =>
        q
          .innerJoin('users as u', 'u.id', 'r.user_id')
          .select(['r.user_id', 'u.username', 'u.display_name', 'r.read_at'])
          .orderBy('r.user_id'),
      window,
    );
  }

  /** Ids among `ids` that are existing (not deleted) users. */
  async existingUsers(ids: number[]): Promise<number[]> {
    const rows = await this.k
      .selectFrom('users')
      .select('id')
      .where('id', 'in', ids)
      .where('deleted_at', 'is', null)
      .execute();
    return rows.map((r) => r.id);
  }

  /** The message and one receipt per recipient, in one transaction. */
  async create(msg: Omit<MessageRow, 'id'>, userIds: number[]): Promise<number> {
    return this.k.transaction().execute(async (trx) => {
      const id =
        this.db.dialect === 'mysql'
          ? Number((await trx.insertInto('messages').values(msg).executeTakeFirstOrThrow()).insertId)
          : (await trx.insertInto('messages').values(msg).returning('id').executeTakeFirstOrThrow()).id;
      // Chunks keep each statement under every dialect's bound-parameter limit.
      for (let i = 0; i < userIds.length; i += 500) {
        await trx
          .insertInto('message_recipients')
          .values(userIds.slice(i, i + 500).map((user_id) => ({ message_id: id, user_id, read_at: null })))
          .execute();
      }
      return id;
    });
  }

  async update(id: number, changes: Pick<MessageRow, 'title' | 'content' | 'format'>): Promise<boolean> {
    const res = await this.k.updateTable('messages').set(changes).where('id', '=', id).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Deletes the message and every receipt of it. */
  async remove(id: number): Promise<boolean> {
    return this.k.transaction().execute(async (trx) => {
      await trx.deleteFrom('message_recipients').where('message_id', '=', id).execute();
      const res = await trx.deleteFrom('messages').where('id', '=', id).executeTakeFirst();
      return Number(res.numDeletedRows) === 1;
    });
  }
}
