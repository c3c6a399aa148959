import { DollarOutlined, ThunderboltOutlined, FieldTimeOutlined } from '@ant-design/icons';
import { Flex, Skeleton, Tooltip } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { LogStat } from '../api';

interface Props {
  stat: LogStat | undefined;
  loading: boolean;
  quotaText: (n: number) => string;
}

function Item({
  icon,
  label,
  hint,
  value,
  color,
  testid,
}: {
  icon: ReactNode;
  label: string;
  hint: string;
  value: ReactNode;
  color: string;
  testid: string;
}) {
  return (
    <Tooltip title={hint}>
      <div className="tw-log-stat" style={{ ['--tw-stat-color' as string]: color }}>
        <span className="tw-log-stat-icon">{icon}</span>
        <span className="tw-log-stat-label">{label}</span>
        <span className="tw-log-stat-value" data-testid={testid}>
          {value}
        </span>
      </div>
    </Tooltip>
  );
}

/** Quota used by the matching consumption logs, requests and tokens of the last minute (GET …/stat). */
export function LogsStatBar({ stat, loading, quotaText }: Props) {
  const { t } = useTranslation('logs');
  const show = (v: ReactNode) =>
    loading && !stat ? <Skeleton.Button active size="small" style={{ width: 48, height: 18 }} /> : v;
  return (
    <Flex wrap gap={8} style={{ marginBottom: 16 }} data-testid="logs-stat">
      <Item
        icon={<DollarOutlined />}
        label={t('stat.quota')}
        hint={t('stat.quotaHint')}
        value={show(quotaText(stat?.quota ?? 0))}
        color="#1677ff"
        testid="logs-stat-quota"
      />
      <Item
        icon={<ThunderboltOutlined />}
        label={t('stat.rpm')}
        hint={t('stat.rpmHint')}
        value={show(stat?.rpm ?? 0)}
        color="#fa8c16"
        testid="logs-stat-rpm"
      />
      <Item
        icon={<FieldTimeOutlined />}
        label={t('stat.tpm')}
        hint={t('stat.tpmHint')}
        value={show(stat?.tpm ?? 0)}
        color="#722ed1"
        testid="logs-stat-tpm"
      />
    </Flex>
  );
}
