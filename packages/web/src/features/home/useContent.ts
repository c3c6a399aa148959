import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api';

/**
 * Admin-authored text from GET /api/home_page_content, /api/about or /api/notice (data: string).
 * The last answer is kept locally so the page renders at once on the next visit.
 */
export function useContent(kind: 'home_page_content' | 'about' | 'notice') {
  const cacheKey = `content_${kind}`;
  return useQuery({
    queryKey: ['content', kind],
    queryFn: async () => {
      const data = await apiGet<string>(`/api/${kind}`, { silent: true });
      const text = typeof data === 'string' ? data : '';
      localStorage.setItem(cacheKey, text);
      return text;
    },
    placeholderData: () => localStorage.getItem(cacheKey) ?? undefined,
    staleTime: 60_000,
  });
}
