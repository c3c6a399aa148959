import { useQuery } from '@tanstack/react-query';
import { TokenStatus } from '@tollway/shared';
import { apiGet, apiPost } from '../../lib/api';
import { getStoredUser } from '../../lib/storage';

/**
 * The full key (without sk-) of the user's first enabled token, for a chat link's {key}: lists mask keys, so the
 * key is asked for with POST /api/token/:id/key. Null when there is none; the query is off when logged out.
 */
export function useChatKey() {
  const loggedIn = getStoredUser() !== undefined;
  return useQuery({
    queryKey: ['tokens', 'chat-key'],
    enabled: loggedIn,
    queryFn: async () => {
      const page = await apiGet<{ items: { id: number; status: number }[] }>('/api/token/?p=0&size=100');
      const token = page?.items.find((t) => t.status === TokenStatus.Enabled);
      if (!token) return null;
      return (await apiPost<{ key: string }>(`/api/token/${token.id}/key`)).data?.key ?? null;
    },
  });
}
