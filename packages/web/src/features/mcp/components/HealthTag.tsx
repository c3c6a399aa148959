import type { McpServerHealth } from '@tollway/shared';
import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';

const COLORS: Record<McpServerHealth['state'], string> = { closed: 'success', half_open: 'warning', open: 'error' };

/** A server's breaker as a tag; its last error and failures in a row in the tooltip. */
export function HealthTag({ health, enabled }: { health: McpServerHealth | undefined; enabled: boolean }) {
  const { t } = useTranslation('mcp');
  if (!enabled) return <Tag>{t('health.off')}</Tag>;
  if (!health) return <Tag>{t('health.unknown')}</Tag>;
  const tip = [
    health.state === 'open' && health.open_until ? t('health.openUntil', { time: formatTime(health.open_until) }) : '',
    health.consecutive_failures > 0
      ? t('health.failures', { count: health.consecutive_failures, threshold: health.failure_threshold })
      : '',
    health.last_error
      ? t('health.lastError', { error: health.last_error, time: formatTime(health.last_error_at) })
      : '',
  ].filter(Boolean);
  const tag = (
    <Tag color={COLORS[health.state]} data-testid={`mcp-health-${health.id}`}>
      {t(`health.${health.state}`)}
    </Tag>
  );
  return tip.length ? <Tooltip title={tip.join(' · ')}>{tag}</Tooltip> : tag;
}
