import { KeyOutlined, TagsOutlined } from '@ant-design/icons';
import { renderQuota } from '@tollway/shared';
import { Flex, Tag, Tooltip, Typography, type TableColumnsType } from 'antd';
import type { TFunction } from 'i18next';
import { isTagRow, type Channel, type ListRow, type TagRow } from '../api';
import type { ColumnKey, ColumnVisibility } from '../model/storage';
import { parseOtherInfo } from '../model/status';
import { channelTypeLabel } from '../model/typeLabel';
import type { ChannelActions } from '../model/useChannelActions';
import { BalanceCell } from './BalanceCell';
import type { PromptCacheRow } from './CacheHitCell';
import { GroupTags } from './GroupTags';
import { ChannelHealthCell, TagHealthCell } from './HealthCell';
import { InlineNumber } from './InlineNumber';
import { ResponseTimeBadge } from './ResponseTimeBadge';
import { RowActions } from './RowActions';
import { ChannelStatus, TagStatus } from './StatusCell';
import { TagRowActions } from './TagRowActions';

export interface ColumnDeps {
  t: TFunction;
  mobile: boolean;
  visible: ColumnVisibility;
  quota: { displayInCurrency: boolean; quotaPerUnit?: number };
  actions: ChannelActions;
  onEdit: (c: Channel) => void;
  onPickTestModel: (c: Channel) => void;
  onEditTag: (row: TagRow) => void;
  /** Today's prompt-cache figures by channel id. */
  promptCache: ReadonlyMap<number, PromptCacheRow>;
}

/** Width of the name column at 1440 px (it grows on wider screens). */
const NAME_WIDTH = 114;

/** The lowest priority a channel may take. */
const PRIORITY_MIN = -999;

/** A column of a number edited in place: a channel's own or, on a tag row, every channel of the tag. */
function numberColumn(
  field: 'priority' | 'weight',
  min: number,
  d: ColumnDeps,
): TableColumnsType<ListRow>[number] & { key: ColumnKey } {
  return {
    key: field,
    title: d.t(`col.${field}`),
    width: 72,
    render: (_, r) => (
      <InlineNumber
        value={r[field]}
        min={min}
        ariaLabel={d.t(`col.${field}`)}
        testId={isTagRow(r) ? `channel-tag-${field}-${encodeURIComponent(r.tag)}` : `channel-${field}-${r.id}`}
        onCommit={(n) => d.actions.setNumber(r, field, n)}
      />
    ),
  };
}

function NameCell({ row, t }: { row: ListRow; t: TFunction }) {
  if (isTagRow(row)) {
    return (
      <Flex gap={6} align="center" wrap>
        <TagsOutlined className="tw-ch-tag-icon" />
        <Typography.Text strong>{row.tag}</Typography.Text>
        <Tag variant="filled" style={{ marginInlineEnd: 0 }}>
          {t('tagRow.count', { count: row.channel_count })}
        </Tag>
      </Flex>
    );
  }
  const info = row.channel_info;
  return (
    <Flex vertical gap={2} align="flex-start" style={{ minWidth: 0, width: '100%' }}>
      {/* The name takes the column's width (wider on a wide screen), cut with the full name on hover. */}
      <Typography.Text strong ellipsis={{ tooltip: row.name }} style={{ maxWidth: '100%' }}>
        {row.name}
      </Typography.Text>
      <Flex gap={4} wrap>
        {row.tag ? (
          <Tag icon={<TagsOutlined />} color="processing" style={{ marginInlineEnd: 0 }}>
            {row.tag}
          </Tag>
        ) : null}
        {info?.is_multi_key ? (
          <Tooltip title={t('multiKey.rowHint', { mode: t(`multiKey.${info.multi_key_mode}`) })}>
            <Tag icon={<KeyOutlined />} color="purple" style={{ marginInlineEnd: 0 }}>
              {t('multiKey.rowTag', { count: info.multi_key_size })}
            </Tag>
          </Tooltip>
        ) : null}
      </Flex>
    </Flex>
  );
}

/** Columns of the channel table in display order, sized so all fit a 1440 px screen beside the sidebar (narrower windows fold some, see useFittedColumns); hidden ones are left out. */
export function channelColumns(d: ColumnDeps): TableColumnsType<ListRow> {
  const { t } = d;
  const all: (TableColumnsType<ListRow>[number] & { key: ColumnKey | 'actions' })[] = [
    {
      key: 'id',
      title: t('col.id'),
      width: 52,
      render: (_, r) => (isTagRow(r) ? null : <span className="tw-ch-num">{r.id}</span>),
    },
    { key: 'name', title: t('col.name'), width: NAME_WIDTH, render: (_, r) => <NameCell row={r} t={t} /> },
    {
      key: 'type',
      title: t('col.type'),
      // Wide enough for a six-character Chinese vendor name; longer names are cut, whole on hover.
      width: 104,
      render: (_, r) =>
        r.type === 0 ? (
          <Tag>{t('typeMixed')}</Tag>
        ) : (
          <Tooltip title={`${channelTypeLabel(t, r.type)} · ${r.type}`}>
            <Tag className="tw-ch-type-tag" data-testid={isTagRow(r) ? undefined : `channel-type-${r.id}`}>
              {channelTypeLabel(t, r.type)}
            </Tag>
          </Tooltip>
        ),
    },
    {
      key: 'status',
      title: t('col.status'),
      width: 80,
      render: (_, r) => (isTagRow(r) ? <TagStatus row={r} /> : <ChannelStatus channel={r} />),
    },
    {
      key: 'health',
      title: t('col.health'),
      width: 88,
      render: (_, r) =>
        isTagRow(r) ? <TagHealthCell row={r} /> : <ChannelHealthCell channel={r} cache={d.promptCache.get(r.id)} />,
    },
    {
      key: 'response',
      title: t('col.response'),
      width: 86,
      render: (_, r) => (
        <ResponseTimeBadge
          ms={r.response_time}
          testedAt={isTagRow(r) ? undefined : r.test_time}
          id={isTagRow(r) ? undefined : r.id}
          testError={isTagRow(r) ? undefined : parseOtherInfo(r.other_info).testError}
        />
      ),
    },
    {
      key: 'balance',
      title: t('col.balance'),
      width: 84,
      render: (_, r) =>
        isTagRow(r) ? (
          <BalanceCell balance={r.balance} />
        ) : (
          <BalanceCell
            balance={r.balance}
            updatedAt={r.balance_updated_time}
            id={r.id}
            onRefresh={() => d.actions.refreshBalance(r)}
          />
        ),
    },
    {
      key: 'used',
      title: t('col.used'),
      width: 66,
      render: (_, r) => (
        <Tooltip title={t('usedRaw', { value: r.used_quota })}>
          <span className="tw-ch-num">{renderQuota(r.used_quota ?? 0, d.quota)}</span>
        </Tooltip>
      ),
    },
    numberColumn('priority', PRIORITY_MIN, d),
    numberColumn('weight', 0, d),
    { key: 'group', title: t('col.group'), width: 92, render: (_, r) => <GroupTags groups={r.group} /> },
    {
      key: 'actions',
      title: t('col.actions'),
      width: 220,
      fixed: d.mobile ? undefined : 'right',
      render: (_, r) =>
        isTagRow(r) ? (
          <TagRowActions row={r} actions={d.actions} onEditTag={d.onEditTag} />
        ) : (
          <RowActions channel={r} actions={d.actions} onEdit={d.onEdit} onPickTestModel={d.onPickTestModel} />
        ),
    },
  ];
  return all.filter((c) => c.key === 'actions' || d.visible[c.key]);
}
