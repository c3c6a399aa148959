import {
  ErrorCode,
  isRoot,
  type AdminMessage,
  type CreateMessageBody,
  type InboxMessage,
  type MessageRecipient,
  type UpdateMessageBody,
} from '@tollway/shared';
import type { Db } from '../../db/connect.js';
import { coded, refused, notFound } from '../../lib/errors.js';
import { readPage, type Page, type PageQuery } from '../../db/paging.js';
import { perContext } from '../../per-context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { nowSeconds } from '../../lib/time.js';
import { MessagesStore, type InboxRow, type MessageRow } from './store.js';

type Format = InboxMessage['format'];
const formatOf = (f: string): Format => (f === 'html' ? 'html' : 'markdown');

const inboxView = (r: InboxRow): InboxMessage => ({
  id: r.id,
  title: r.title,
  content: r.content,
  format: formatOf(r.format),
  created_at: Number(r.created_at),
  read_at: r.read_at === null ? null : Number(r.read_at),
  is_read: r.read_at !== null,
});

/** Unknown recipients named in a refusal. */
const MISSING_IDS_LISTED = 10;

/** Who may change a message: its author, or root (an administrator cannot rewrite what root or another administrator wrote). */
const mayChange = (viewer: Pick<AuthUser, 'id' | 'role'>, row: Pick<MessageRow, 'created_by'>) =>
  isRoot(viewer.role) || Number(row.created_by) === viewer.id;

/** An ISO date (or date-time) string as epoch seconds; a clear refusal when it is not one. */
function epochOf(iso: string, name: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw coded(ErrorCode.DateInvalid, `${name} is not a valid date`, { field: name });
  return Math.floor(ms / 1000);
}

/** Admin messages: administrators send, users read their own inbox. */
export class MessagesService {
  private readonly store: MessagesStore;

  constructor(db: Db) {
    this.store = new MessagesStore(db);
  }

  inbox(userId: number, q: PageQuery) {
    return readPage(q, (w) => this.store.inboxPage(userId, w), inboxView);
  }

  unreadCount(userId: number) {
    return this.store.unreadCount(userId).then((unread_count) => ({ unread_count }));
  }

  /** One message of the caller's inbox; opening it marks it read. */
  async open(userId: number, id: number): Promise<InboxMessage> {
    const row = await this.store.inboxMessage(userId, id);
    if (!row) throw notFound('message does not exist', ErrorCode.MessageNotFound);
    if (row.read_at === null) {
      const at = nowSeconds();
      await this.store.markRead(userId, id, at);
      return inboxView({ ...row, read_at: at });
    }
    return inboxView(row);
  }

  async markRead(userId: number, id: number): Promise<void> {
    if (!(await this.store.inboxMessage(userId, id)))
      throw notFound('message does not exist', ErrorCode.MessageNotFound);
    await this.store.markRead(userId, id, nowSeconds());
  }

  private async withStats(viewer: AuthUser, rows: MessageRow[]): Promise<AdminMessage[]> {
    const stats = await this.store.stats(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id,
      title: r.title,
      content: r.content,
      format: formatOf(r.format),
      created_at: Number(r.created_at),
      created_by: Number(r.created_by),
      editable: mayChange(viewer, r),
      stats: stats.get(r.id) ?? { total_recipients: 0, read_count: 0 },
    }));
  }

  async list(viewer: AuthUser, q: PageQuery & { keyword?: string; start_date?: string; end_date?: string }) {
    // The date range applies only when both ends are given.
    const ranged =
      q.start_date && q.end_date
        ? { from: epochOf(q.start_date, 'start_date'), to: epochOf(q.end_date, 'end_date') }
        : {};
    const page = await readPage(q, (w) => this.store.page({ ...w, keyword: q.keyword || undefined, ...ranged }));
    return { ...page, items: await this.withStats(viewer, page.items) };
  }

  async get(viewer: AuthUser, id: number): Promise<AdminMessage> {
    const row = await this.store.get(id);
    if (!row) throw notFound('message does not exist', ErrorCode.MessageNotFound);
    return (await this.withStats(viewer, [row]))[0]!;
  }

  async recipients(id: number, q: PageQuery): Promise<Page<MessageRecipient>> {
    if (!(await this.store.get(id))) throw notFound('message does not exist', ErrorCode.MessageNotFound);
    return readPage(
      q,
      (w) => this.store.recipients(id, w),
      (r) => ({ ...r, read_at: r.read_at === null ? null : Number(r.read_at) }),
    );
  }

  /** Sends a message to existing users; unknown or deleted ids are refused by name. */
  async create(senderId: number, body: CreateMessageBody): Promise<{ id: number }> {
    const ids = [...new Set(body.user_ids)];
    const found = new Set(await this.store.existingUsers(ids));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      const listed = missing.slice(0, MISSING_IDS_LISTED).join(', ');
      throw coded(ErrorCode.MessageUsersMissing, `user does not exist: ${listed}`, { ids: listed });
    }
    const id = await this.store.create(
      { title: body.title, content: body.content, format: body.format, created_at: nowSeconds(), created_by: senderId },
      ids,
    );
    return { id };
  }

  /** The message when `actor` may change it; refuses a missing message (404) and someone else's (403). */
  private async changeable(actor: AuthUser, id: number): Promise<MessageRow> {
    const row = await this.store.get(id);
    if (!row) throw notFound('message does not exist', ErrorCode.MessageNotFound);
    if (!mayChange(actor, row))
      throw refused('only the author of a message or root may change it', ErrorCode.MessageAuthorOnly);
    return row;
  }

  async update(actor: AuthUser, id: number, body: UpdateMessageBody): Promise<void> {
    await this.changeable(actor, id);
    await this.store.update(id, body);
  }

  async remove(actor: AuthUser, id: number): Promise<void> {
    await this.changeable(actor, id);
    if (!(await this.store.remove(id))) throw notFound('message does not exist', ErrorCode.MessageNotFound);
  }
}

export const messagesOf = perContext((ctx) => new MessagesService(ctx.db));
