import { useStoredValue } from '../../../lib/storage';
import { useStoredColumns, type ColumnVisibility as StoredVisibility } from '../../../lib/useStoredColumns';

/** Local-storage keys of the channel page. */
export const STORAGE = {
  pageSize: 'page-size',
  idSort: 'id-sort',
  bulk: 'enable-batch-delete',
  tagMode: 'enable-tag-mode',
  columns: 'channels-table-columns',
} as const;

/** A boolean remembered in local storage as the text true/false. */
export function useStoredFlag(key: string): [boolean, (v: boolean) => void] {
  return useStoredValue<boolean>(key, (text) => text === 'true');
}

/** Columns the settings dialog can hide; actions always show. */
export const COLUMN_KEYS = [
  'id',
  'name',
  'type',
  'status',
  'health',
  'response',
  'balance',
  'used',
  'priority',
  'weight',
  'group',
] as const;
export type ColumnKey = (typeof COLUMN_KEYS)[number];
export type ColumnVisibility = StoredVisibility<ColumnKey>;

/** Column visibility remembered in local storage. */
export const useColumnVisibility = () => useStoredColumns<ColumnKey>(STORAGE.columns, COLUMN_KEYS);
