import { FilterOutlined } from '@ant-design/icons';
import { TokenStatus } from '@tollway/shared';
import { Flex, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';
import type { Token } from '../api';

/** 1 enabled (with a note when model limits are on), 2 disabled, 3 expired, 4 exhausted. */
export function TokenStatusTag({ token }: { token: Token }) {
  const { t } = useTranslation('tokens');
  const testid = `token-status-${token.id}`;
  switch (token.status) {
    case TokenStatus.Enabled: {
      if (!token.model_limits_enabled) {
        return (
          <Tag color="green" data-testid={testid}>
            {t('status.enabled')}
          </Tag>
        );
      }
      const models = token.model_limits.split(',').filter(Boolean).join(', ');
      return (
        <Flex vertical gap={2} align="flex-start">
          <Tag color="green" data-testid={testid} style={{ marginInlineEnd: 0 }}>
            {t('status.enabled')}
          </Tag>
          <Tooltip title={t('status.limitedHint', { models: models || '—' })}>
            <Typography.Text
              type="secondary"
              style={{ fontSize: 12, cursor: 'help' }}
              data-testid={`token-limited-${token.id}`}
            >
              <FilterOutlined /> {t('status.limited')}
            </Typography.Text>
          </Tooltip>
        </Flex>
      );
    }
    case TokenStatus.Disabled:
      return (
        <Tag color="default" data-testid={testid}>
          {t('status.disabled')}
        </Tag>
      );
    case TokenStatus.Expired:
      return (
        <Tag color="orange" data-testid={testid}>
          {t('status.expired')}
        </Tag>
      );
    case TokenStatus.Exhausted:
      return (
        <Tag color="red" data-testid={testid}>
          {t('status.exhausted')}
        </Tag>
      );
    default:
      return <Tag data-testid={testid}>{t('status.unknown')}</Tag>;
  }
}

/** Token times: minutes only, '—' for none. */
export const formatTokenTime = (epoch: number) => formatTime(epoch, { seconds: false, empty: '—' });

/** Expiry or "never"; a past expiry in the warning colour. */
export function ExpiryCell({ epoch }: { epoch: number }) {
  const { t } = useTranslation('tokens');
  if (epoch === -1) return <span className="tw-tok-muted">{t('value.never')}</span>;
  const past = epoch * 1000 < Date.now();
  return past ? (
    <Tooltip title={t('value.expiredAt', { time: formatTime(epoch, { empty: '—' }) })}>
      <span className="tw-tok-expired">{formatTokenTime(epoch)}</span>
    </Tooltip>
  ) : (
    <span>{formatTokenTime(epoch)}</span>
  );
}

/** The token's group, or "user group" when it follows its owner's. */
export function TokenGroupTag({ group }: { group: string }) {
  const { t } = useTranslation('tokens');
  if (!group) return <Tag bordered={false}>{t('value.userGroup')}</Tag>;
  return <Tag color="blue">{group}</Tag>;
}
