import { useQuery } from '@tanstack/react-query';
import { isOptionKey } from '@tollway/shared';
import { apiGet } from '../../../lib/api';
import type { OptionMap } from './options';

export const OPTIONS_KEY = ['options'] as const;

/** GET /api/option/ → [{key, value}] as a map (secrets come back blank). */
export function useOptions() {
  return useQuery({
    queryKey: OPTIONS_KEY,
    queryFn: async () => {
      const list = (await apiGet<{ key: string; value: string }[]>('/api/option/')) ?? [];
      const map: OptionMap = {};
      for (const { key, value } of list) if (isOptionKey(key)) map[key] = value ?? '';
      return map;
    },
    staleTime: Infinity,
  });
}
