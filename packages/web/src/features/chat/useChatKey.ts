import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api';
import { getStoredUser } from '../../lib/storage';

/** The key of the user's first enabled token (for a chat link's {key}); undefined when logged out or none. */
export function useChatKey() {
  const loggedIn = getStoredUser() !== undefined;
  return useQuery({
    queryKey: ['tokens', 'chat-key'],
    enabled: loggedIn,
    queryFn: async () => {
      const page = await apiGet<{ items: { key: string; status: number }[] }>('/api/token/?p=0&size=100');
      return page?.items.find((t) => t.status === 1)?.key ?? null;
    },
  });
}
