import { useCallback, useState } from 'react';
import { readJson, writeJson } from '../../lib/storage';

/** Toggleable columns of the log table and whether they show by default. */
export const LOG_COLUMNS = ['time', 'channel', 'username', 'token', 'group', 'type', 'model', 'useTime', 'tokens', 'quota', 'ip', 'details'] as const;
export type LogColumn = (typeof LOG_COLUMNS)[number];
/** Columns only administrators get. */
export const ADMIN_COLUMNS: readonly LogColumn[] = ['channel', 'username'];

const STORAGE_KEY = 'logs-table-columns';

/** Column visibility kept locally; columns missing from the stored map are shown. */
export function useColumnVisibility(): [Record<LogColumn, boolean>, (next: Partial<Record<LogColumn, boolean>> | null) => void] {
  const read = (): Record<LogColumn, boolean> => {
    const stored = readJson<Partial<Record<LogColumn, boolean>>>(STORAGE_KEY) ?? {};
    return Object.fromEntries(LOG_COLUMNS.map((c) => [c, stored[c] !== false])) as Record<LogColumn, boolean>;
  };
  const [visible, setVisible] = useState(read);
  const update = useCallback((next: Partial<Record<LogColumn, boolean>> | null) => {
    setVisible((cur) => {
      const merged = next === null ? (Object.fromEntries(LOG_COLUMNS.map((c) => [c, true])) as Record<LogColumn, boolean>) : { ...cur, ...next };
      writeJson(STORAGE_KEY, merged);
      return merged;
    });
  }, []);
  return [visible, update];
}
