import { useQuery } from '@tanstack/react-query';
import { isOptionKey } from '@tollway/shared';
import { apiGet } from '../../../lib/api';
import type { OptionMap } from './options';

export const OPTIONS_KEY = ['options'] as const;

/**
 * GET /api/option/ → [{key, value}] as a map (secrets come back blank). The tab body asks for `fresh` data so each
 * visit starts from the server's values; the sections inside it read the same cache without refetching.
 */
export function useOptions({ fresh = false, enabled = true }: { fresh?: boolean; enabled?: boolean } = {}) {
  return useQuery({
    queryKey: OPTIONS_KEY,
    queryFn: async () => {
      const list = (await apiGet<{ key: string; value: string }[]>('/api/option/')) ?? [];
      const map: OptionMap = {};
      for (const { key, value } of list) if (isOptionKey(key)) map[key] = value ?? '';
      return map;
    },
    enabled,
    staleTime: 60_000,
    refetchOnMount: fresh ? 'always' : true,
  });
}
