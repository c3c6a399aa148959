import type { LogRow } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { readPage, type Page, type PageQuery } from '../../db/paging.js';
import { perContext } from '../../per-context.js';
import { nowSeconds } from '../../lib/time.js';
import { LogsStore, type LogScope } from './store.js';
import { toAdminLog, toUserLog } from './view.js';

/** Logs answered for an API key's own calls (GET /api/log/token). */
export const RECENT_TOKEN_LOGS = 100;

/** What the logs listing needs: the database the logs table lives in, and the users (whose settings say whether they see IPs). */
export type LogsDeps = Pick<AppContext, 'logDb' | 'usersStore'>;

/** Usage logs as administrators and users see them: administrators every user's with channels, users their own. */
export class LogsService {
  readonly store: LogsStore;

  constructor(private readonly deps: LogsDeps) {
    this.store = new LogsStore(deps.logDb);
  }

  /** Every user's logs, newest first. */
  page(q: PageQuery & LogScope): Promise<Page<LogRow>> {
    return readPage(q, (w) => this.store.page(q, w), toAdminLog);
  }

  /** The user's own logs, newest first: no channel; the IP only with their show_ip_in_logs setting. */
  async selfPage(userId: number, q: PageQuery & LogScope): Promise<Page<LogRow>> {
    const [page, showIp] = await Promise.all([
      readPage(q, (w) => this.store.page({ ...q, userId }, w)),
      this.showsIp(userId),
    ]);
    return { ...page, items: page.items.map((row) => toUserLog(row, showIp)) };
  }

  /** The newest logs of one of the user's tokens (new-api's 100), as the user sees their own. */
  async recentOfToken(userId: number, tokenId: number): Promise<LogRow[]> {
    const [rows, showIp] = await Promise.all([
      this.store.recentOfToken(userId, tokenId, RECENT_TOKEN_LOGS),
      this.showsIp(userId),
    ]);
    return rows.map((row) => toUserLog(row, showIp));
  }

  /** Quota of the matching consumption logs; requests and tokens of the last 60 seconds (userId: own logs only). */
  stat(q: LogScope): Promise<{ quota: number; rpm: number; tpm: number }> {
    return this.store.stat(q, nowSeconds());
  }

  /** Deletes the logs created before `before`; returns how many. */
  deleteBefore(before: number): Promise<number> {
    return this.store.deleteBefore(before);
  }

  /** The user's setting show_ip_in_logs (users.setting JSON); off when unset or unreadable. */
  private async showsIp(userId: number): Promise<boolean> {
    const u = await this.deps.usersStore.findById(userId);
    try {
      return (JSON.parse(u?.setting || '{}') as { show_ip_in_logs?: unknown }).show_ip_in_logs === true;
    } catch {
      return false;
    }
  }
}

export const logsOf = perContext((ctx) => new LogsService(ctx));
