import { useStoredColumns } from '../../lib/useStoredColumns';

/** Toggleable columns of the log table and whether they show by default. */
export const LOG_COLUMNS = [
  'time',
  'channel',
  'retry',
  'username',
  'token',
  'type',
  'model',
  'useTime',
  'tokens',
  'quota',
  'ip',
  'details',
] as const;
export type LogColumn = (typeof LOG_COLUMNS)[number];
/** Columns only administrators get. */
export const ADMIN_COLUMNS: readonly LogColumn[] = ['channel', 'retry', 'username'];

const STORAGE_KEY = 'logs-table-columns';

/** Column visibility kept locally; columns missing from the stored map are shown. */
export const useColumnVisibility = () => useStoredColumns<LogColumn>(STORAGE_KEY, LOG_COLUMNS);
