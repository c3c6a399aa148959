import { useCallback, useState } from 'react';

/**
 * Runs a form's API action with a loading flag. A failed call was already shown to the user by the API client
 * (lib/api.ts toasts the server's message), so the failure ends here and the form stays as it is.
 */
export function useSubmit(): { loading: boolean; run: (action: () => Promise<void>) => Promise<void> } {
  const [loading, setLoading] = useState(false);
  const run = useCallback(async (action: () => Promise<void>) => {
    setLoading(true);
    try {
      await action();
    } catch {
      /* toast shown by the API client */
    } finally {
      setLoading(false);
    }
  }, []);
  return { loading, run };
}
