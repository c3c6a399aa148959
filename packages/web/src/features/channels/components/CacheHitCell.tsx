import { useQuery } from '@tanstack/react-query';
import { Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../../lib/api';

/** One channel's prompt tokens today and the part the provider read from its prompt cache (GET /api/channel/prompt_cache). */
export interface PromptCacheRow {
  channel_id: number;
  prompt_tokens: number;
  cache_read_tokens: number;
  hit_ratio: number;
}

const PERCENT = 100;
/** The figures move with traffic: read again every minute while the page is open. */
const REFRESH_MS = 60_000;

/** Each channel's prompt-cache figures of the day, by channel id. */
export function usePromptCache(): ReadonlyMap<number, PromptCacheRow> {
  const q = useQuery({
    queryKey: ['channels', 'prompt_cache'],
    queryFn: () => apiGet<PromptCacheRow[]>('/api/channel/prompt_cache', { silent: true }),
    refetchInterval: REFRESH_MS,
  });
  return new Map((q.data ?? []).map((r) => [r.channel_id, r]));
}

/** The share of the channel's prompt tokens read from the provider's cache today. */
export function CacheHitCell({ row, id }: { row: PromptCacheRow; id: number }) {
  const { t } = useTranslation('channels');
  return (
    <Tooltip title={t('cacheHit.tip', { cached: row.cache_read_tokens, prompt: row.prompt_tokens })}>
      <Typography.Text type="secondary" style={{ fontSize: 12 }} className="tw-ch-help">
        {t('cacheHit.label')}{' '}
        <span className="tw-ch-num" data-testid={`channel-cache-hit-${id}`}>
          {(row.hit_ratio * PERCENT).toFixed(1)}%
        </span>
      </Typography.Text>
    </Tooltip>
  );
}
