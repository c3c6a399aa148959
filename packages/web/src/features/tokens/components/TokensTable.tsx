import { Flex, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { renderQuota, TokenStatus } from '@tollway/shared';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../lib/status';
import { actionsColumn, RecordTable, type RecordTableProps } from '../../../components/RecordTable';
import { useIsMobile } from '../../../lib/useIsMobile';
import type { Token } from '../api';
import { TokenActions } from './TokenActions';
import { ExpiryCell, formatTokenTime, TokenGroupTag, TokenStatusTag } from './TokenCells';
import { TokenKeyCell } from './TokenKeyCell';
import { TokenPeriodCell } from './TokenPeriodCell';

/** Digits of a balance below a cent (6: one quota at the default 500000 per dollar is $0.000002). */
const SMALL_DIGITS = 6;

/** The token list: status badges, quotas, times, group and row actions; disabled rows greyed; cards on a phone. */
export function TokensTable(p: RecordTableProps<Token>) {
  const { t } = useTranslation('tokens');
  const { data: status } = useStatus();
  const mobile = useIsMobile();
  const quota = useMemo(() => {
    const opts = { displayInCurrency: status?.display_in_currency ?? true, quotaPerUnit: status?.quota_per_unit };
    return (n: number) => {
      const shown = renderQuota(n ?? 0, opts);
      // A balance left below a cent is shown to its last digits, never as an empty-looking $0.00.
      return n > 0 && /^\$0\.0+$/.test(shown) ? renderQuota(n, { ...opts, digits: SMALL_DIGITS }) : shown;
    };
  }, [status?.display_in_currency, status?.quota_per_unit]);

  const columns: TableColumnsType<Token> = [
    {
      title: t('col.name'),
      key: 'name',
      // Room for the masked key (sk- and 18 characters of monospace) beside its eye.
      width: 195,
      fixed: 'left',
      render: (_, tok) => (
        <Flex vertical gap={2} align={mobile ? 'flex-end' : 'flex-start'} style={{ minWidth: 0, maxWidth: '100%' }}>
          <Typography.Text strong ellipsis={{ tooltip: tok.name }} style={{ maxWidth: mobile ? undefined : 150 }}>
            {tok.name}
          </Typography.Text>
          <TokenKeyCell token={tok} />
        </Flex>
      ),
    },
    { title: t('col.status'), key: 'status', width: 110, render: (_, tok) => <TokenStatusTag token={tok} /> },
    { title: t('col.used'), dataIndex: 'used_quota', width: 90, render: (n: number) => quota(n) },
    {
      title: t('col.remain'),
      key: 'remain',
      width: 100,
      render: (_, tok) =>
        tok.unlimited_quota ? (
          <Tag color="purple" bordered={false}>
            {t('value.unlimited')}
          </Tag>
        ) : (
          <Tooltip title={t('value.quotaRaw', { quota: tok.remain_quota })}>
            <span
              className={tok.remain_quota <= 0 ? 'tw-tok-expired' : undefined}
              data-testid={`token-remain-${tok.id}`}
            >
              {quota(tok.remain_quota)}
            </span>
          </Tooltip>
        ),
    },
    {
      title: t('col.period'),
      key: 'period',
      width: 150,
      render: (_, tok) => (
        <TokenPeriodCell limits={tok.period_limits} quota={quota} testid={`token-period-${tok.id}`} />
      ),
    },
    { title: t('col.created'), dataIndex: 'created_time', width: 135, render: (n: number) => formatTokenTime(n) },
    { title: t('col.expiry'), dataIndex: 'expired_time', width: 135, render: (n: number) => <ExpiryCell epoch={n} /> },
    { title: t('col.group'), dataIndex: 'group', width: 100, render: (g: string) => <TokenGroupTag group={g} /> },
    actionsColumn<Token>(t('col.actions'), 175, 'tw-tok-actions-cell', mobile, (tok) => (
      <TokenActions token={tok} onToggle={p.onToggle} onEdit={p.onEdit} onDelete={p.onDelete} />
    )),
  ];

  return (
    <RecordTable
      list={p}
      columns={columns}
      scrollX={1225}
      rowClassName={(tok) => (tok.status === TokenStatus.Disabled ? 'tw-tok-row-disabled' : '')}
      rowTestid="token-row"
    />
  );
}
