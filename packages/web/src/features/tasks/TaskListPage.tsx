import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { SyncOutlined } from '@ant-design/icons';
import { Table, Tag, type TableColumnsType } from 'antd';
import { isAdmin } from '@tollway/shared';
import type { Dayjs } from 'dayjs';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader';
import { cardColumns, cardLayout } from '../../components/cardTable';
import { useIsMobile } from '../../lib/useIsMobile';
import { useStoredUser } from '../../lib/session';
import { usePaging } from '../../lib/paging';
import { fetchTaskPage, TASKS_KEY, type TaskKind } from './api';
import { TaskFilters, toFilters, type TaskDraft } from './TaskFilters';
import { isRunning } from './status';
import '../../styles/logs.css';
import { ListCard } from '../../components/ListCard';

/** How often the page refetches while a shown task is running. */
const LIVE_REFRESH_MS = 5000;

interface Props<T> {
  kind: TaskKind;
  title: string;
  subtitle: string;
  idLabel: string;
  /** The default time range: drawings the last 30 days, music tasks since the start of today. */
  defaultRange: () => [Dayjs, Dayjs | null];
  columns: (admin: boolean) => TableColumnsType<T>;
}

/**
 * A task log page: filters, and a paged table of every user's tasks (administrators) or the caller's own; cards on
 * a phone.
 */
export function TaskListPage<T extends { id: number; status: string }>({
  kind,
  title,
  subtitle,
  idLabel,
  defaultRange,
  columns,
}: Props<T>) {
  const { t } = useTranslation('tasks');
  const admin = isAdmin(useStoredUser()?.role);
  const queryClient = useQueryClient();
  const fresh = useCallback((): TaskDraft => {
    const [start, end] = defaultRange();
    return { id: '', channel: null, start, end };
  }, [defaultRange]);
  const [draft, setDraft] = useState<TaskDraft>(fresh);
  const [applied, setApplied] = useState(() => toFilters(draft));
  const { page, pageSize, setPage, pagination } = usePaging(`${kind}-tasks-page-size`, (r) => t('pageInfo', r));

  const list = useQuery({
    queryKey: [...TASKS_KEY, kind, admin, applied, page, pageSize],
    queryFn: () => fetchTaskPage<T>(kind, applied, page, pageSize, admin),
    placeholderData: keepPreviousData,
    // Live progress: refetch while a shown task is still running.
    refetchInterval: (q) => (q.state.data?.items.some((r) => isRunning(r.status)) ? LIVE_REFRESH_MS : false),
  });
  const live = list.data?.items.some((r) => isRunning(r.status)) ?? false;
  const refresh = () => void queryClient.invalidateQueries({ queryKey: [...TASKS_KEY, kind] });
  const apply = (next: TaskDraft) => {
    const f = toFilters(next);
    if (JSON.stringify(f) === JSON.stringify(applied) && page === 1) refresh();
    setApplied(f);
    setPage(1);
  };
  const mobile = useIsMobile();
  const cols = columns(admin);

  return (
    <>
      <PageHeader
        title={title}
        subtitle={subtitle}
        extra={
          live && (
            <Tag icon={<SyncOutlined spin />} color="processing" data-testid={`${kind}-tasks-live`}>
              {t('live', { seconds: LIVE_REFRESH_MS / 1000 })}
            </Tag>
          )
        }
      />
      <ListCard>
        <TaskFilters
          draft={draft}
          admin={admin}
          loading={list.isFetching}
          idLabel={idLabel}
          testPrefix={`${kind}-tasks`}
          onChange={(patch) => setDraft((d) => ({ ...d, ...patch }))}
          onSearch={() => apply(draft)}
          onReset={() => {
            const next = fresh();
            setDraft(next);
            apply(next);
          }}
          onRefresh={refresh}
        />
        <Table<T>
          data-testid={`${kind}-tasks-table`}
          rowKey="id"
          size="middle"
          columns={cardColumns(cols, mobile)}
          dataSource={list.data?.items ?? []}
          loading={list.isFetching}
          {...cardLayout(
            mobile,
            cols.reduce((w, c) => w + (typeof c.width === 'number' ? c.width : 120), 0),
          )}
          pagination={pagination(list.data?.total ?? 0)}
        />
      </ListCard>
    </>
  );
}
