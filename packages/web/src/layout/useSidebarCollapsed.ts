import { useCallback, useState } from 'react';
import { useStatus } from '../lib/status';

const KEY = 'sidebar_collapsed';

/** The user's collapse choice, persisted locally; defaults to status.default_collapse_sidebar. */
export function useSidebarCollapsed(): [boolean, (v: boolean) => void] {
  const { data: status } = useStatus();
  const [stored, setStored] = useState<string | null>(() => localStorage.getItem(KEY));
  const collapsed = stored === null ? Boolean(status?.default_collapse_sidebar) : stored === 'true';
  const set = useCallback((v: boolean) => {
    localStorage.setItem(KEY, String(v));
    setStored(String(v));
  }, []);
  return [collapsed, set];
}
