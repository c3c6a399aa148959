import { ReloadOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, DatePicker, Table, Tag, type TableColumnsType } from 'antd';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListCard } from '../../../components/ListCard';
import { PageHeader } from '../../../components/PageHeader';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { formatTime } from '../../../lib/format-time';
import { usePaging } from '../../../lib/paging';
import { useQuotaFormat } from '../../../lib/self';
import { useIsMobile } from '../../../lib/useIsMobile';
import { fetchOrgLogs, orgKey, type OrgLogRow, type SpendFilter } from '../api';
import { SpendFilters } from '../components/SpendFilters';
import { useOrgView } from '../context';

/**
 * /app/org/:id/logs: the organization's consume logs, paged (a member: their own calls), narrowed by a range and the
 * spend page's filters.
 */
export default function LogsPage() {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const fmt = useQuotaFormat();
  const mobile = useIsMobile();
  const { page, pageSize, setPage, pagination } = usePaging('org-logs-page-size', (r) => t('logs.pageInfo', r));
  const [filter, setFilter] = useState<SpendFilter>({});
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(null);
  const query = {
    ...filter,
    ...(range ? { start_timestamp: range[0].unix(), end_timestamp: range[1].unix() } : {}),
  };
  const list = useQuery({
    queryKey: orgKey(org.id, 'logs', page, pageSize, query),
    queryFn: () => fetchOrgLogs(org.id, page, pageSize, query),
    placeholderData: keepPreviousData,
  });

  const columns: TableColumnsType<OrgLogRow> = [
    { title: t('logs.time'), key: 'time', width: 160, render: (_, r) => formatTime(r.created_at) },
    ...(can('spend.all')
      ? [
          {
            title: t('logs.member'),
            key: 'member',
            width: 120,
            render: (_: unknown, r: OrgLogRow) => r.member_name || '—',
          },
        ]
      : []),
    { title: t('logs.team'), key: 'team', width: 120, render: (_, r) => r.team_name || '—' },
    { title: t('logs.token'), dataIndex: 'token_name', key: 'token', width: 140 },
    { title: t('logs.model'), dataIndex: 'model_name', key: 'model', width: 160 },
    {
      title: t('logs.tokens'),
      key: 'tokens',
      width: 140,
      render: (_, r) => `${r.prompt_tokens} / ${r.completion_tokens}`,
    },
    { title: t('logs.quota'), key: 'quota', width: 110, render: (_, r) => fmt(r.quota) },
    {
      title: t('logs.tags'),
      key: 'tags',
      width: 160,
      render: (_, r) => (r.tags.length ? r.tags.map((tag) => <Tag key={tag}>{tag}</Tag>) : '—'),
    },
  ];

  return (
    <>
      <PageHeader
        title={t('page.logs')}
        subtitle={t('logs.subtitle')}
        extra={
          <Button
            icon={<ReloadOutlined />}
            aria-label={t('common.refresh')}
            onClick={() => void list.refetch()}
            data-testid="org-logs-refresh"
          />
        }
      />
      <ListCard>
        <div className="tw-org-toolbar" data-testid="org-logs-filters">
          <DatePicker.RangePicker
            value={range}
            aria-label={t('spend.range')}
            onChange={(v) => {
              setRange(v && v[0] && v[1] ? [v[0].startOf('day'), v[1].endOf('day')] : null);
              setPage(1);
            }}
            data-testid="org-logs-range"
          />
          <SpendFilters
            value={filter}
            onChange={(next) => {
              setFilter(next);
              setPage(1);
            }}
          />
        </div>
        <Table<OrgLogRow>
          rowKey="id"
          size="middle"
          columns={cardColumns(columns, mobile)}
          dataSource={list.data?.items ?? []}
          loading={list.isFetching}
          {...cardLayout(mobile, 1110)}
          pagination={pagination(list.data?.total ?? 0)}
          onRow={(r) => ({ 'data-testid': `org-log-row-${r.id}` }) as object}
        />
      </ListCard>
    </>
  );
}
