import { useCallback, useState, useSyncExternalStore } from 'react';

export const PAGE_SIZE_OPTIONS = [10, 20, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 10;

/** A page size remembered in local storage under `key` (spec 1 §9: default 10, options 10/20/50/100). */
export function usePageSize(key: string): [number, (n: number) => void] {
  const [size, setSize] = useState<number>(() => {
    const stored = Number(localStorage.getItem(key));
    return (PAGE_SIZE_OPTIONS as readonly number[]).includes(stored) ? stored : DEFAULT_PAGE_SIZE;
  });
  const update = useCallback(
    (n: number) => {
      localStorage.setItem(key, String(n));
      setSize(n);
    },
    [key],
  );
  return [size, update];
}

const MOBILE_QUERY = '(max-width: 600px)';

/** True at the mobile layout width of 600 pixels or less (spec 1 §1). */
export function useIsMobile(): boolean {
  return useSyncExternalStore(
    (cb) => {
      const mq = window.matchMedia(MOBILE_QUERY);
      mq.addEventListener('change', cb);
      return () => mq.removeEventListener('change', cb);
    },
    () => window.matchMedia(MOBILE_QUERY).matches,
  );
}
