import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';
import { formatSeconds, responseTimeColor } from '../model/status';

/**
 * Response time of the last test: untested, seconds coloured by speed, or (the last test failed, `testError`) a red
 * "failed" with the reason on hover: a fast failure is no sign of health.
 */
export function ResponseTimeBadge({
  ms,
  testedAt,
  id,
  testError,
}: {
  ms: number;
  testedAt?: number;
  id?: number | string;
  testError?: string;
}) {
  const { t } = useTranslation('channels');
  const testId = id !== undefined ? `channel-speed-${id}` : undefined;
  if (testError) {
    return (
      <Tooltip title={t('speed.failedAt', { time: testedAt ? formatTime(testedAt) : '', reason: testError })}>
        <Tag color="red" data-testid={testId} data-speed="failed" className="tw-ch-help">
          {t('speed.failed')}
        </Tag>
      </Tooltip>
    );
  }
  const color = responseTimeColor(ms);
  const tag = (
    <Tag color={color} data-testid={testId} data-speed={color}>
      {ms ? formatSeconds(ms) : t('speed.untested')}
    </Tag>
  );
  return testedAt ? <Tooltip title={t('speed.testedAt', { time: formatTime(testedAt) })}>{tag}</Tooltip> : tag;
}
