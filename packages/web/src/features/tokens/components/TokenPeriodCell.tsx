import type { PeriodRemaining } from '@tollway/shared';
import { Flex, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';

/**
 * What is left of each period limit of a token (quota shown with `quota`, requests as a count), its use against the
 * limit and its reset time on hover; — when none.
 */
export function TokenPeriodCell({
  limits,
  quota,
  testid,
}: {
  limits: PeriodRemaining[] | undefined;
  quota: (n: number) => string;
  testid: string;
}) {
  const { t } = useTranslation('tokens');
  if (!limits?.length) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Flex vertical gap={2} data-testid={testid}>
      {limits.map((l) => {
        const amount = (n: number) => (l.period === 'requests_day' ? String(n) : quota(n));
        const left = amount(l.remaining);
        const reset = l.reset_at ? t('value.periodReset', { time: formatTime(l.reset_at) }) : t('value.periodUnused');
        const title = (
          <>
            <div>{t('value.periodUsed', { used: amount(l.used), limit: amount(l.limit) })}</div>
            <div>{reset}</div>
          </>
        );
        return (
          <Tooltip key={l.period} title={title}>
            <Typography.Text
              type={l.remaining <= 0 ? 'danger' : undefined}
              style={{ fontSize: 12, cursor: 'help', whiteSpace: 'nowrap' }}
            >
              {t(`period.${l.period}`)}: {t('value.periodLeft', { left })}
            </Typography.Text>
          </Tooltip>
        );
      })}
    </Flex>
  );
}
