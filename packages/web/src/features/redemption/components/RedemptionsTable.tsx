import { Flex, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../../lib/self';
import { actionsColumn, RecordTable, type RecordTableProps } from '../../../components/RecordTable';
import { useIsMobile } from '../../../lib/useIsMobile';
import { isExhausted, RedemptionStatus, type Redemption } from '../api';
import { formatTime } from '../../../lib/format-time';
import { RedemptionActions } from './RedemptionActions';
import { RedemptionStatusTag, UsesCell, ValidityCell } from './RedemptionCells';

/** The code list: rows greyed when not unused or when a gift code has reached its max uses. */
export function RedemptionsTable(p: RecordTableProps<Redemption>) {
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
          <Typography.Text
            type="secondary"
            className="tw-red-key"
            copyable={{ text: r.key }}
            data-testid={`redemption-key-${r.id}`}
          >
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
    actionsColumn<Redemption>(t('col.actions'), 140, 'tw-red-actions-cell', mobile, (r) => (
      <RedemptionActions r={r} onToggle={p.onToggle} onEdit={p.onEdit} onDelete={p.onDelete} />
    )),
  ];

  return (
    <RecordTable
      list={p}
      columns={columns}
      scrollX={1070}
      rowClassName={(r) => (r.status !== RedemptionStatus.Unused || isExhausted(r) ? 'tw-red-row-inactive' : '')}
      rowTestid="redemption-row"
    />
  );
}
