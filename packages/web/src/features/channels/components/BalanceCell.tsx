import { ReloadOutlined } from '@ant-design/icons';
import { Flex, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';
import { TipButton } from '../../../components/TipButton';

interface Props {
  balance: number;
  updatedAt?: number;
  /** Absent for tag rows (a sum, not refreshable). */
  onRefresh?: () => Promise<void>;
  id?: number;
}

/** Upstream balance with a refresh button. */
export function BalanceCell({ balance, updatedAt, onRefresh, id }: Props) {
  const { t } = useTranslation('channels');
  const [busy, setBusy] = useState(false);
  const text = `$${(balance ?? 0).toFixed(2)}`;
  return (
    <Flex align="center" gap={2}>
      <Tooltip title={updatedAt ? t('balance.updatedAt', { time: formatTime(updatedAt) }) : t('balance.never')}>
        <Typography.Text className="tw-ch-num" type={balance ? undefined : 'secondary'}>
          {text}
        </Typography.Text>
      </Tooltip>
      {onRefresh ? (
        <TipButton
          subtle
          label={t('balance.refresh')}
          icon={<ReloadOutlined />}
          loading={busy}
          data-testid={id !== undefined ? `channel-balance-${id}` : undefined}
          onClick={async () => {
            setBusy(true);
            try {
              await onRefresh();
            } finally {
              setBusy(false);
            }
          }}
        />
      ) : null}
    </Flex>
  );
}
