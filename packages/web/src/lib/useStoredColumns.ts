import { useCallback, useState } from 'react';
import { readJson, writeJson } from './storage';

/** Which columns of a table show, by key. */
export type ColumnVisibility<K extends string> = Record<K, boolean>;
/** A change to the visible columns: some keys switched, or null for the defaults (every column). */
export type ColumnChange<K extends string> = Partial<ColumnVisibility<K>> | null;

const allShown = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, true])) as ColumnVisibility<K>;

/** Column visibility remembered in local storage under `storageKey`; columns missing from the stored map show. */
export function useStoredColumns<K extends string>(
  storageKey: string,
  keys: readonly K[],
): [ColumnVisibility<K>, (next: ColumnChange<K>) => void] {
  const [visible, setVisible] = useState<ColumnVisibility<K>>(() => {
    const stored = readJson<Partial<Record<string, unknown>>>(storageKey) ?? {};
    return Object.fromEntries(keys.map((k) => [k, stored[k] !== false])) as ColumnVisibility<K>;
  });
  const update = useCallback(
    (next: ColumnChange<K>) => {
      setVisible((cur) => {
        const merged = next === null ? allShown(keys) : { ...cur, ...next };
        writeJson(storageKey, merged);
        return merged;
      });
    },
    [storageKey, keys],
  );
  return [visible, update];
}
