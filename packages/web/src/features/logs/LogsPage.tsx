import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Table } from 'antd';
import { ColumnSettings } from '../../components/ColumnSettings';
import { cardColumns, cardLayout } from '../../components/cardTable';
import { isAdmin, renderQuota } from '@tollway/shared';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { foldedFooter } from '../../components/foldedFooter';
import { useStatus } from '../../lib/status';
import { PageHeader } from '../../components/PageHeader';
import { useStoredUser } from '../../lib/session';
import { useIsMobile } from '../../lib/useIsMobile';
import { useFittedColumns } from '../../lib/useFittedColumns';
import { usePaging } from '../../lib/paging';
import { fetchLogs, fetchLogStat, LOGS_KEY, useLogGroups, type LogRow } from './api';
import { LogDetails } from './components/LogDetails';
import { parseOther } from './format';
import { logColumns } from './components/logColumns';
import { defaultDraft, LogsFilters, toFilters, type LogDraft } from './components/LogsFilters';
import { LogsStatBar } from './components/LogsStatBar';
import { ADMIN_COLUMNS, useColumnVisibility, type LogColumn } from './hooks';
import '../../styles/logs.css';
import { rowTestId } from '../../lib/table';
import { ListCard } from '../../components/ListCard';

/** Width of the expand-arrow column. */
const EXPAND_WIDTH = 32;
/** Least width of the details column (it has no fixed width: it takes what the others leave). */
const DETAILS_MIN_WIDTH = 124;
/**
 * Columns left out, in this order, while the table is wider than its box (1280 and 1366 px beside the sidebar).
 * Time, user, token/group, model, tokens, cost, details and the retry column always show.
 */
const FOLD_ORDER: readonly LogColumn[] = ['ip', 'channel', 'useTime', 'type'];
/** Room the details keep (beyond their least width) before other columns grow: at 1440 px they get all of it. */
const DETAILS_RESERVE = 64;
/**
 * On wider screens the room past the reserve goes first to the values cut at their base width, px each may gain:
 * the type tag ("Consumption"), token and channel names, the model, the username; the details take the rest.
 */
const GROW: Partial<Record<LogColumn, number>> = { type: 40, token: 144, channel: 112, model: 40, username: 24 };

/**
 * Usage logs: filters, the stat bar, and a paged table with expandable billing details.
 * Administrators (stored role ≥ 10) read every user's logs with channel and username; others their own.
 */
export default function LogsPage() {
  const { t } = useTranslation('logs');
  const user = useStoredUser();
  const admin = isAdmin(user?.role);
  const { data: status } = useStatus();
  const queryClient = useQueryClient();

  const { page, pageSize, setPage, pagination } = usePaging('logs-page-size', (r) => t('pageInfo', r));
  const [draft, setDraft] = useState<LogDraft>(defaultDraft);
  const [applied, setApplied] = useState(() => toFilters(draft));
  const [visible, setVisible] = useColumnVisibility();
  const mobile = useIsMobile();

  const list = useQuery({
    queryKey: [...LOGS_KEY, 'list', admin, applied, page, pageSize],
    queryFn: () => fetchLogs(applied, page, pageSize, admin),
    placeholderData: keepPreviousData,
  });
  const stat = useQuery({
    queryKey: [...LOGS_KEY, 'stat', admin, applied],
    queryFn: () => fetchLogStat(applied, admin),
  });
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: LOGS_KEY }), [queryClient]);

  const groups = useLogGroups(admin);

  const quota = useMemo(() => {
    const opts = { displayInCurrency: status?.display_in_currency ?? true, quotaPerUnit: status?.quota_per_unit };
    return (n: number) =>
      renderQuota(n ?? 0, { ...opts, digits: opts.displayInCurrency && n !== 0 && Math.abs(n) < 5000 ? 6 : undefined });
  }, [status?.display_in_currency, status?.quota_per_unit]);

  const items = list.data?.items ?? [];
  const anyIp = items.some((r) => !!r.ip);
  // The retry column shows when a row of the page went through more than one channel.
  const anyRetry = admin && items.some((r) => (parseOther(r.other).admin_info?.use_channel?.length ?? 0) > 1);
  const all = useMemo(() => logColumns(t, quota, mobile), [t, quota, mobile]);
  const offered = all.filter((c) => admin || !ADMIN_COLUMNS.includes(c.key));
  const shown = cardColumns(
    offered
      .filter((c) => visible[c.key] && (c.key !== 'ip' || anyIp) && (c.key !== 'retry' || anyRetry))
      .map((c) => (c.key === 'time' ? { ...c, fixed: 'left' as const } : c)),
    mobile,
  );
  // Secondary columns that do not fit the window are left out (named under the table), so nothing scrolls sideways.
  const fit = useFittedColumns(shown, {
    order: FOLD_ORDER,
    extraWidth: EXPAND_WIDTH,
    enabled: !mobile,
    fallbackWidth: DETAILS_MIN_WIDTH,
    grow: GROW,
    reserve: DETAILS_RESERVE,
  });
  const { columns, folded } = fit;

  const apply = (next: LogDraft) => {
    const f = toFilters(next);
    setApplied(f);
    setPage(1);
    if (JSON.stringify(f) === JSON.stringify(applied)) void refresh();
  };

  return (
    <>
      <PageHeader title={t('title')} subtitle={admin ? t('subtitleAdmin') : t('subtitle')} />
      <ListCard>
        <LogsFilters
          draft={draft}
          admin={admin}
          loading={list.isFetching}
          groups={groups.data ?? []}
          onChange={(patch) => setDraft((d) => ({ ...d, ...patch }))}
          onTypeChange={(type) => {
            const next = { ...draft, type };
            setDraft(next);
            apply(next);
          }}
          onSearch={() => apply(draft)}
          onReset={() => {
            const next = defaultDraft();
            setDraft(next);
            apply(next);
          }}
          onRefresh={() => void refresh()}
          extra={
            <ColumnSettings
              columns={offered.map((c) => ({ key: c.key, title: String(c.title) }))}
              visible={visible}
              onChange={setVisible}
              testId="logs-columns"
            />
          }
        />
        <LogsStatBar stat={stat.data} loading={stat.isFetching} quotaText={quota} />
        <div ref={fit.ref}>
          <Table<LogRow>
            data-testid="logs-table"
            rowKey="id"
            size="middle"
            columns={columns}
            dataSource={items}
            loading={list.isFetching}
            {...cardLayout(mobile, fit.width)}
            onRow={rowTestId((r) => `log-row-${r.id}`)}
            expandable={{
              expandedRowRender: (r) => (
                <LogDetails
                  row={r}
                  admin={admin}
                  quotaPerUnit={status?.quota_per_unit}
                  width={fit.box ? fit.box - 32 : undefined}
                />
              ),
              rowExpandable: (r) => r.other !== '' || r.content !== '' || r.request_id !== '',
              columnWidth: EXPAND_WIDTH,
              fixed: mobile ? undefined : 'left',
            }}
            pagination={pagination(list.data?.total ?? 0)}
            footer={foldedFooter(folded, t, 'logs-folded')}
          />
        </div>
      </ListCard>
    </>
  );
}
