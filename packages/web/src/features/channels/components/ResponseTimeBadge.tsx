import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';
import { formatSeconds, responseTimeColor } from '../model/status';

/** Response time of the last test: untested, or seconds coloured by speed. */
export function ResponseTimeBadge({ ms, testedAt, id }: { ms: number; testedAt?: number; id?: number | string }) {
  const { t } = useTranslation('channels');
  const color = responseTimeColor(ms);
  const tag = (
    <Tag color={color} data-testid={id !== undefined ? `channel-speed-${id}` : undefined} data-speed={color}>
      {ms ? formatSeconds(ms) : t('speed.untested')}
    </Tag>
  );
  return testedAt ? <Tooltip title={t('speed.testedAt', { time: formatTime(testedAt) })}>{tag}</Tooltip> : tag;
}
