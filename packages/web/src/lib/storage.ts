import type { UserPublic } from '@tollway/shared';
import { useCallback, useState } from 'react';

/** Typed access to the local-storage keys the console uses (user, theme-mode, i18nextLng, …). */
export function readJson<T>(key: string): T | undefined {
  try {
    const raw = localStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : undefined;
  } catch {
    return undefined;
  }
}

export function writeJson(key: string, value: unknown): void {
  localStorage.setItem(key, JSON.stringify(value));
}

/** The signed-in user as the console remembers it between visits. */
export type StoredUser = Pick<UserPublic, 'id' | 'username' | 'display_name' | 'role' | 'status' | 'group'>;

export const getStoredUser = (): StoredUser | undefined => readJson<StoredUser>('user');
export const setStoredUser = (u: StoredUser): void => writeJson('user', u);
export const clearStoredUser = (): void => localStorage.removeItem('user');

/** A value remembered in local storage under `key`: `parse` reads the stored text (null when none); it is stored as text. */
export function useStoredValue<T extends string | number | boolean>(
  key: string,
  parse: (text: string | null) => T,
): [T, (v: T) => void] {
  const [value, setValue] = useState<T>(() => parse(localStorage.getItem(key)));
  const update = useCallback(
    (v: T) => {
      localStorage.setItem(key, String(v));
      setValue(v);
    },
    [key],
  );
  return [value, update];
}
