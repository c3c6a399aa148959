import { useSyncExternalStore } from 'react';

/** Mobile layout applies at a width of 600 pixels or less. */
const QUERY = '(max-width: 600px)';

function subscribe(listener: () => void): () => void {
  const mql = window.matchMedia(QUERY);
  mql.addEventListener('change', listener);
  return () => mql.removeEventListener('change', listener);
}

export function useIsMobile(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(QUERY).matches);
}
