import { useCallback, useState } from 'react';

/** Which of a row's actions is running (its button shows a spinner, the others wait). */
export function useBusy<K extends string>(): [K | null, (what: K, fn: () => Promise<void>) => Promise<void>] {
  const [busy, setBusy] = useState<K | null>(null);
  const run = useCallback(async (what: K, fn: () => Promise<void>) => {
    setBusy(what);
    try {
      await fn();
    } finally {
      setBusy(null);
    }
  }, []);
  return [busy, run];
}
