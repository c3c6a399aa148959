import { Flex, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { isExhausted, RedemptionStatus, type Redemption } from '../api';
import { formatTime } from '../../../lib/format-time';

/** 1 unused, 2 disabled, 3 used, anything else unknown; a gift code out of uses says so. */
export function RedemptionStatusTag({ r }: { r: Redemption }) {
  const { t } = useTranslation('redemption');
  const testid = `redemption-status-${r.id}`;
  if (r.status === RedemptionStatus.Unused && isExhausted(r)) {
    return (
      <Tag color="orange" data-testid={testid}>
        {t('status.exhausted')}
      </Tag>
    );
  }
  const [color, key] =
    r.status === RedemptionStatus.Unused
      ? ['green', 'unused']
      : r.status === RedemptionStatus.Disabled
        ? ['red', 'disabled']
        : r.status === RedemptionStatus.Used
          ? ['default', 'used']
          : ['default', 'unknown'];
  return (
    <Tag color={color} data-testid={testid}>
      {t(`status.${key}`)}
    </Tag>
  );
}

/** Uses as "n / max" (a gift code is tagged; unlimited spelled out) and the last user who redeemed it. */
export function UsesCell({ r }: { r: Redemption }) {
  const { t } = useTranslation('redemption');
  return (
    <Flex vertical gap={2} align="flex-start">
      <Flex gap={4} align="center">
        {r.is_gift ? (
          <Tag color="magenta" bordered={false} style={{ marginInlineEnd: 0 }}>
            {t('value.gift')}
          </Tag>
        ) : null}
        <span>
          {r.used_count} / {!r.is_gift ? 1 : r.max_uses > 0 ? r.max_uses : t('value.unlimited')}
        </span>
      </Flex>
      {r.used_user_id ? (
        <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid={`redemption-user-${r.id}`}>
          {t('value.lastUser', { id: r.used_user_id })}
        </Typography.Text>
      ) : null}
    </Flex>
  );
}

/** The validity window, with a warning colour when not yet valid or expired. */
export function ValidityCell({ r }: { r: Redemption }) {
  const { t } = useTranslation('redemption');
  const now = Date.now() / 1000;
  if (!r.valid_from && !r.valid_until) return <Typography.Text type="secondary">{t('value.always')}</Typography.Text>;
  const state =
    r.valid_until && now >= r.valid_until ? 'expired' : r.valid_from && now < r.valid_from ? 'notYet' : null;
  return (
    <Flex vertical gap={0} style={{ fontSize: 12 }}>
      {r.valid_from ? <span>{t('value.from', { time: formatTime(r.valid_from) })}</span> : null}
      {r.valid_until ? <span>{t('value.until', { time: formatTime(r.valid_until) })}</span> : null}
      {state ? (
        <Typography.Text type="warning" style={{ fontSize: 12 }}>
          {t(`value.${state}`)}
        </Typography.Text>
      ) : null}
    </Flex>
  );
}
