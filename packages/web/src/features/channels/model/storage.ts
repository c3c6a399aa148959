import { useCallback, useState } from 'react';
import { useStoredValue } from '../../../lib/storage';

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
export const COLUMN_KEYS = ['id', 'name', 'type', 'status', 'health', 'response', 'balance', 'used', 'priority', 'weight', 'group'] as const;
export type ColumnKey = (typeof COLUMN_KEYS)[number];
export type ColumnVisibility = Record<ColumnKey, boolean>;

export const ALL_VISIBLE = Object.fromEntries(COLUMN_KEYS.map((k) => [k, true])) as ColumnVisibility;

function readColumns(): ColumnVisibility {
  try {
    const raw = JSON.parse(localStorage.getItem(STORAGE.columns) ?? '{}') as Partial<Record<string, unknown>>;
    return Object.fromEntries(COLUMN_KEYS.map((k) => [k, raw[k] !== false])) as ColumnVisibility;
  } catch {
    return { ...ALL_VISIBLE };
  }
}

/** Column visibility remembered in local storage. */
export function useColumnVisibility(): [ColumnVisibility, (v: ColumnVisibility) => void] {
  const [value, setValue] = useState<ColumnVisibility>(readColumns);
  const update = useCallback((v: ColumnVisibility) => {
    localStorage.setItem(STORAGE.columns, JSON.stringify(v));
    setValue(v);
  }, []);
  return [value, update];
}
