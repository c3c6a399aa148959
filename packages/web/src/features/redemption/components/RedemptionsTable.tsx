import { Flex, Table, Typography } from 'antd';
import type { TableColumnsType, TablePaginationConfig, TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../me/api';
import { useIsMobile } from '../../shell/useIsMobile';
import { isExhausted, RedemptionStatus, type Redemption } from '../api';
import { formatTime } from '../schema';
import { RedemptionActions } from './RedemptionActions';
import { RedemptionStatusTag, UsesCell, ValidityCell } from './RedemptionCells';

interface Props {
  items: Redemption[];
  loading: boolean;
  pagination: TablePaginationConfig;
  rowSelection: NonNullable<TableProps<Redemption>['rowSelection']>;
  onToggle: (r: Redemption) => Promise<void>;
  onEdit: (r: Redemption) => void;
  onDelete: (r: Redemption) => Promise<void>;
}

/** The code list: rows greyed when not unused or when a gift code has reached its max uses (spec 3 §4). */
export function RedemptionsTable(p: Props) {
  const { t } = useTranslation('redemption');
  const quota = useQuotaFormat();
  const mobile = useIsMobile();

  const columns: TableColumnsType<Redemption> = [
    { title: t('col.id'), dataIndex: 'id', width: 60 },
    {
      title: t('col.name'),
      key: 'name',
      width: mobile ? 150 : 200,
      render: (_, r) => (
        <Flex vertical gap={2} style={{ minWidth: 0 }}>
          <Typography.Text strong ellipsis={{ tooltip: r.name }}>
            {r.name}
          </Typography.Text>
          <Typography.Text type="secondary" className="tw-red-key" copyable={{ text: r.key }} data-testid={`redemption-key-${r.id}`}>
            {r.key}
          </Typography.Text>
        </Flex>
      ),
    },
    { title: t('col.status'), key: 'status', width: 90, render: (_, r) => <RedemptionStatusTag r={r} /> },
    { title: t('col.quota'), dataIndex: 'quota', width: 90, render: (n: number) => quota(n) },
    { title: t('col.uses'), key: 'uses', width: 130, render: (_, r) => <UsesCell r={r} /> },
    { title: t('col.created'), dataIndex: 'created_time', width: 150, render: (n: number) => formatTime(n) },
    { title: t('col.validity'), key: 'validity', width: 170, render: (_, r) => <ValidityCell r={r} /> },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 140,
      className: 'tw-red-actions-cell',
      fixed: mobile ? undefined : 'right',
      render: (_, r) => <RedemptionActions r={r} onToggle={p.onToggle} onEdit={p.onEdit} onDelete={p.onDelete} />,
    },
  ];

  return (
    <Table<Redemption>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={p.items}
      loading={p.loading}
      scroll={{ x: 1070 }}
      rowClassName={(r) => (r.status !== RedemptionStatus.Unused || isExhausted(r) ? 'tw-red-row-inactive' : '')}
      onRow={(r) => ({ 'data-testid': `redemption-row-${r.id}` }) as React.HTMLAttributes<HTMLElement>}
      rowSelection={p.rowSelection}
      pagination={p.pagination}
    />
  );
}
