import {
  DollarOutlined,
  FieldTimeOutlined,
  NumberOutlined,
  ThunderboltOutlined,
  TranslationOutlined,
} from '@ant-design/icons';
import { Card, Skeleton, Tooltip } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Totals } from './aggregate';

interface Props {
  totals: Totals;
  rpm: number;
  tpm: number;
  loading: boolean;
  quotaText: (n: number) => string;
}

function StatCard({
  icon,
  color,
  label,
  hint,
  value,
  testId,
  loading,
}: {
  icon: ReactNode;
  color: string;
  label: string;
  hint?: string;
  value: string;
  testId: string;
  loading: boolean;
}) {
  const body = (
    <Card
      variant="borderless"
      className="tw-dash-card"
      style={{ ['--tw-dash-color' as string]: color }}
      styles={{ body: { padding: 16 } }}
    >
      <div className="tw-dash-card-head">
        <span className="tw-dash-card-icon">{icon}</span>
        <span className="tw-dash-card-label">{label}</span>
      </div>
      <div className="tw-dash-card-value" data-testid={testId}>
        {loading ? <Skeleton.Button active size="small" style={{ width: 72 }} /> : value}
      </div>
    </Card>
  );
  return hint ? <Tooltip title={hint}>{body}</Tooltip> : body;
}

/** Two significant digits below 1 (0.0014), two decimals below 10, whole numbers above. */
const decimals = (n: number) =>
  n === 0 ? '0' : n < 1 ? String(Number(n.toPrecision(2))) : n < 10 ? n.toFixed(2) : Math.round(n).toLocaleString();

/** Totals over the selected range: quota spent, tokens, calls, and their averages per minute. */
export function StatCards({ totals, rpm, tpm, loading, quotaText }: Props) {
  const { t } = useTranslation('dashboard');
  return (
    <div className="tw-dash-cards" data-testid="dashboard-totals">
      <StatCard
        icon={<DollarOutlined />}
        color="#1677ff"
        label={t('card.quota')}
        value={quotaText(totals.quota)}
        testId="dashboard-total-quota"
        loading={loading}
      />
      <StatCard
        icon={<TranslationOutlined />}
        color="#13c2c2"
        label={t('card.tokens')}
        value={totals.tokens.toLocaleString()}
        testId="dashboard-total-tokens"
        loading={loading}
      />
      <StatCard
        icon={<NumberOutlined />}
        color="#52c41a"
        label={t('card.calls')}
        value={totals.calls.toLocaleString()}
        testId="dashboard-total-calls"
        loading={loading}
      />
      <StatCard
        icon={<ThunderboltOutlined />}
        color="#fa8c16"
        label={t('card.rpm')}
        hint={t('card.rpmHint')}
        value={decimals(rpm)}
        testId="dashboard-avg-rpm"
        loading={loading}
      />
      <StatCard
        icon={<FieldTimeOutlined />}
        color="#722ed1"
        label={t('card.tpm')}
        hint={t('card.tpmHint')}
        value={decimals(tpm)}
        testId="dashboard-avg-tpm"
        loading={loading}
      />
    </div>
  );
}
