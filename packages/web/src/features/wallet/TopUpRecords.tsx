import { ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useTranslation } from 'react-i18next';
import type { TopUpRecord } from '@tollway/shared';
import { formatTime } from '../../lib/format-time';
import { useQuotaFormat } from '../../lib/self';
import { usePaging } from '../../lib/paging';
import { useTopUpRecords, useUnitQuota } from './api';

const STATUS_COLOR = { pending: 'orange', success: 'green', expired: 'default', failed: 'red' } as const;
const METHOD_KEY: Record<string, string> = { alipay: 'zfb', wxpay: 'wx' };
const CREEM = 'creem';
const CARD_METHODS = new Set(['stripe', CREEM]);
const time = (s: number) => formatTime(s, { empty: '-' });

/** The caller's online top-up orders, newest first (GET /api/user/topup/self). */
export function TopUpRecords() {
  const { t } = useTranslation('wallet');
  const fmt = useQuotaFormat();
  const { page, pageSize, pagination } = usePaging('topup-page-size', (r) => t('records.pageInfo', r));
  const records = useTopUpRecords(page, pageSize);
  // Amounts are labelled the way balances are shown.
  const unitQuota = useUnitQuota();

  const columns: ColumnsType<TopUpRecord> = [
    {
      title: t('records.tradeNo'),
      dataIndex: 'trade_no',
      render: (v: string) => <Typography.Text copyable={{ text: v }}>{v}</Typography.Text>,
    },
    {
      title: t('records.amount'),
      dataIndex: 'amount',
      // A Creem order's amount is its product's quota (new-api's rule); the others' are units.
      render: (v: number, r) => fmt(r.payment_method === CREEM ? v : v * unitQuota),
    },
    {
      title: t('records.money'),
      dataIndex: 'money',
      // Epay charges yuan; Stripe and Creem charge in their price's currency.
      render: (v: number, r) => `${CARD_METHODS.has(r.payment_method) ? '' : '¥'}${Number(v).toFixed(2)}`,
    },
    {
      title: t('records.method'),
      dataIndex: 'payment_method',
      render: (v: string) => (METHOD_KEY[v] ? t(`topup.${METHOD_KEY[v]}`) : v),
    },
    {
      title: t('records.status'),
      dataIndex: 'status',
      render: (v: TopUpRecord['status']) => <Tag color={STATUS_COLOR[v] ?? 'default'}>{t(`records.${v}`)}</Tag>,
    },
    { title: t('records.created'), dataIndex: 'create_time', render: time },
    { title: t('records.completed'), dataIndex: 'complete_time', render: time },
  ];

  return (
    <Card
      title={t('records.title')}
      data-testid="topup-records"
      extra={
        <Button icon={<ReloadOutlined />} onClick={() => void records.refetch()} loading={records.isFetching}>
          {t('records.refresh')}
        </Button>
      }
    >
      <Table<TopUpRecord>
        rowKey="id"
        size="middle"
        scroll={{ x: 'max-content' }}
        columns={columns}
        dataSource={records.data?.items ?? []}
        loading={records.isLoading}
        locale={{ emptyText: t('records.empty') }}
        pagination={pagination(records.data?.total ?? 0)}
      />
    </Card>
  );
}
