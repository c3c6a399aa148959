import { DATA_DEFAULT_SPAN, type DataGranularity, type DataRow, type UserDataRow } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { perContext } from '../../per-context.js';
import { nowSeconds } from '../../lib/time.js';
import { DataStore, type DataScope } from './store.js';

/** A dashboard query: a time range (0: default) and at most one user. */
export interface DataQuery {
  start_timestamp: number;
  end_timestamp: number;
  userId?: number;
  username?: string;
}

/** What the usage data needs: the hourly table and the options. */
export type DataDeps = Pick<AppContext, 'db' | 'options'>;

/** Data dashboard: hourly usage per model from quota_data, of every user, one user, or the caller. */
export class DataService {
  readonly store: DataStore;

  constructor(private readonly deps: DataDeps) {
    this.store = new DataStore(deps.db);
  }

  hourly(q: DataQuery): Promise<DataRow[]> {
    return this.store.hourly({ ...this.range(q), userId: q.userId, username: q.username || undefined });
  }

  /** Hourly usage per user (every user), for new-api's dashboard. */
  hourlyByUser(q: DataQuery): Promise<UserDataRow[]> {
    return this.store.hourlyByUser(this.range(q));
  }

  /**
   * The time range of a query: missing bounds default to now and to now minus the span of DataExportDefaultTime
   * (a day for hour, a week for day, 30 days for week). Hours are kept by their first second, so the start is
   * moved back to its hour's start and the hour in progress is included.
   */
  private range(q: DataQuery): Pick<DataScope, 'start' | 'end'> {
    const end = q.end_timestamp || nowSeconds();
    const span = DATA_DEFAULT_SPAN[this.deps.options.get('DataExportDefaultTime') as DataGranularity] ?? DATA_DEFAULT_SPAN.hour;
    const start = q.start_timestamp || Math.max(0, end - span);
    return { start: start - (start % 3600), end };
  }
}

export const dataOf = perContext((ctx) => new DataService(ctx));
