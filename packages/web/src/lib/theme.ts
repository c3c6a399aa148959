import { useSyncExternalStore } from 'react';

export type ThemeMode = 'light' | 'dark';
const KEY = 'theme-mode';
const listeners = new Set<() => void>();

export function getTheme(): ThemeMode {
  return localStorage.getItem(KEY) === 'dark' ? 'dark' : 'light';
}

export function setTheme(mode: ThemeMode): void {
  localStorage.setItem(KEY, mode);
  document.documentElement.dataset.theme = mode;
  listeners.forEach((l) => l());
}

/** Theme stored locally under theme-mode. */
export function useTheme(): ThemeMode {
  return useSyncExternalStore((l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, getTheme);
}
