import { Table, type TableProps } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { foldedFooter } from '../../../components/foldedFooter';
import { ChannelStatus } from '@tollway/shared';
import { useStatus } from '../../../lib/status';
import { useIsMobile } from '../../../lib/useIsMobile';
import { isTagRow, type Channel, type ListRow, type TagRow } from '../api';
import type { ColumnVisibility } from '../model/storage';
import { sizedPagination } from '../../../lib/paging';
import type { ChannelActions } from '../model/useChannelActions';
import { channelColumns } from './columns';
import { usePromptCache } from './CacheHitCell';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { useFittedColumns } from '../../../lib/useFittedColumns';
import type { ColumnKey } from '../model/storage';

/**
 * Columns left out, in this order, while the table is wider than its box (a 1280 px laptop): the figures an operator
 * checks now and then. Status, priority, weight, group and the actions always show.
 */
const FOLD_ORDER: readonly ColumnKey[] = ['response', 'used', 'balance', 'type', 'health'];
/** On a wide screen the room left over goes first to the long names (px each may gain), so they show whole. */
const GROW: Partial<Record<ColumnKey, number>> = { name: 160, group: 48 };

interface Props {
  items: ListRow[];
  loading: boolean;
  page: number;
  pageSize: number;
  total: number;
  visible: ColumnVisibility;
  bulk: boolean;
  selected: number[];
  onSelect: (ids: number[]) => void;
  onPageChange: (page: number, pageSize: number) => void;
  actions: ChannelActions;
  onEdit: (c: Channel) => void;
  onPickTestModel: (c: Channel) => void;
  onEditTag: (row: TagRow) => void;
}

/** Width of the bulk-mode selection column. */
const SELECT_WIDTH = 48;

export const rowKeyOf = (r: ListRow) => (isTagRow(r) ? `tag:${r.tag}` : String(r.id));

/** The paged channel table; in tag mode tag rows expand to their channels. */
export function ChannelsTable(p: Props) {
  const { t } = useTranslation('channels');
  const { data: status } = useStatus();
  const mobile = useIsMobile();
  const promptCache = usePromptCache();
  const quota = useMemo(
    () => ({ displayInCurrency: status?.display_in_currency ?? true, quotaPerUnit: status?.quota_per_unit }),
    [status?.display_in_currency, status?.quota_per_unit],
  );
  const all = cardColumns(
    channelColumns({
      t,
      mobile,
      visible: p.visible,
      quota,
      actions: p.actions,
      onEdit: p.onEdit,
      onPickTestModel: p.onPickTestModel,
      onEditTag: p.onEditTag,
      promptCache,
    }),
    mobile,
  );
  // Secondary columns that do not fit the window are left out (named under the table), so nothing scrolls sideways.
  const { ref, columns, folded, width } = useFittedColumns(all, {
    order: FOLD_ORDER,
    extraWidth: p.bulk ? SELECT_WIDTH : 0,
    enabled: !mobile,
    grow: GROW,
  });
  const nameIndex = columns.findIndex((c) => c.key === 'name');

  const rowSelection: TableProps<ListRow>['rowSelection'] = p.bulk
    ? {
        selectedRowKeys: p.selected.map(String),
        onChange: (keys) =>
          p.onSelect(
            keys
              .map(String)
              .filter((k) => !k.startsWith('tag:'))
              .map(Number),
          ),
        fixed: !mobile,
        columnWidth: SELECT_WIDTH,
        checkStrictly: false,
      }
    : undefined;

  return (
    <div ref={ref}>
      <Table<ListRow>
        {...cardLayout(mobile, width)}
        data-testid="channels-table"
        className={`tw-ch-table ${cardLayout(mobile, width).className ?? ''}`}
        rowKey={rowKeyOf}
        size="middle"
        columns={columns}
        dataSource={p.items}
        loading={p.loading}
        rowSelection={rowSelection}
        expandable={{
          indentSize: 16,
          expandIconColumnIndex: nameIndex >= 0 ? nameIndex + (p.bulk ? 1 : 0) : undefined,
        }}
        rowClassName={(r) =>
          isTagRow(r) ? 'tw-ch-tag-row' : r.status !== ChannelStatus.Enabled ? 'tw-ch-off-row' : ''
        }
        onRow={(r) =>
          ({
            'data-testid': isTagRow(r) ? `channel-tag-row-${encodeURIComponent(r.tag)}` : `channel-row-${r.id}`,
          }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{ emptyText: t('empty') }}
        pagination={{
          ...sizedPagination((range) => t('pageInfo', range)),
          current: p.page,
          pageSize: p.pageSize,
          total: p.total,
          onChange: p.onPageChange,
          size: mobile ? 'small' : undefined,
        }}
        footer={foldedFooter(folded, t, 'channels-folded')}
      />
    </div>
  );
}
