import { BarChartOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Card, Empty, Result, Segmented } from 'antd';
import {
  abbreviateNumber,
  DATA_DEFAULT_SPAN,
  DEFAULT_QUOTA_PER_UNIT,
  DATA_GRANULARITIES,
  isAdmin,
  renderQuota,
  type DataGranularity,
} from '@tollway/shared';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../lib/status';
import { PageHeader } from '../../components/PageHeader';
import { useStoredUser } from '../../lib/session';
import { useIsMobile } from '../../lib/useIsMobile';
import { perMinute, summarize, type Metric } from './aggregate';
import { DASHBOARD_KEY, fetchUsage, type DataQuery } from './api';
import { callsOption, consumptionOption } from './chartOptions';
import { DashboardFilters, type DashboardDraft } from './DashboardFilters';
import { EChart } from '../../components/EChart';
import { StatCards } from './StatCards';
import './dashboard.css';

const asGranularity = (v: string | undefined): DataGranularity =>
  (DATA_GRANULARITIES as readonly string[]).includes(v ?? '') ? (v as DataGranularity) : 'hour';

/** The default range of a granularity (DataExportDefaultTime): its span back from now, to an hour ahead. */
function defaultDraft(g: DataGranularity): DashboardDraft {
  const now = dayjs();
  return { start: now.subtract(DATA_DEFAULT_SPAN[g], 'second'), end: now.add(1, 'hour'), username: '' };
}

const toQuery = (d: DashboardDraft): DataQuery => ({
  start: d.start.unix(),
  end: d.end.unix(),
  username: d.username.trim(),
});

/**
 * Data dashboard (/app/dashboard, shown when DataExportEnabled): totals, consumption by model over time
 * (stacked bars of quota, tokens or calls) and calls by model (ring), from the hourly aggregates. The
 * granularity regroups the loaded hours in the browser's time zone; administrators may pick a user.
 */
export default function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const { data: status } = useStatus();
  const admin = isAdmin(useStoredUser()?.role);
  const mobile = useIsMobile();
  const queryClient = useQueryClient();

  const [granularity, setGranularity] = useState<DataGranularity>(() =>
    asGranularity(status?.data_export_default_time),
  );
  const [draft, setDraft] = useState(() => defaultDraft(granularity));
  const [applied, setApplied] = useState(() => toQuery(draft));
  const [metric, setMetric] = useState<Metric>('quota');

  const usage = useQuery({
    queryKey: [...DASHBOARD_KEY, admin, applied],
    queryFn: () => fetchUsage(applied, admin),
    enabled: status?.enable_data_export !== false,
  });

  const quotaText = useMemo(() => {
    const opts = { displayInCurrency: status?.display_in_currency ?? true, quotaPerUnit: status?.quota_per_unit };
    const perUnit = opts.quotaPerUnit || DEFAULT_QUOTA_PER_UNIT;
    // Amounts under one unit keep four decimals ($0.0124), so parts and their total read alike.
    return (n: number) =>
      renderQuota(n, { ...opts, digits: opts.displayInCurrency && n !== 0 && Math.abs(n) < perUnit ? 4 : undefined });
  }, [status?.display_in_currency, status?.quota_per_unit]);

  // "Now" of the data on screen, so re-renders between fetches do not rebuild the charts.
  const now = Math.floor((usage.dataUpdatedAt || Date.now()) / 1000);
  const summary = useMemo(
    () => summarize(usage.data ?? [], granularity, applied.start, Math.min(applied.end, now)),
    [usage.data, granularity, applied, now],
  );
  const { rpm, tpm } = perMinute(summary.totals, applied.start, applied.end, now);
  const format = useMemo(() => {
    if (metric !== 'quota')
      return { value: (n: number) => n.toLocaleString(), axis: (n: number) => abbreviateNumber(n) };
    const perUnit = status?.quota_per_unit || DEFAULT_QUOTA_PER_UNIT;
    // Axis steps in currency keep three significant digits so small steps stay distinct ($0.002, $0.004, …).
    const axis =
      status?.display_in_currency === false
        ? (n: number) => abbreviateNumber(n)
        : (n: number) => `$${Number((n / perUnit).toPrecision(3))}`;
    return { value: quotaText, axis };
  }, [metric, quotaText, status?.quota_per_unit, status?.display_in_currency]);
  const barOption = useMemo(
    () => consumptionOption(summary, metric, format, t('chart.total'), mobile),
    [summary, metric, format, t, mobile],
  );
  const pieOption = useMemo(() => callsOption(summary, mobile), [summary, mobile]);

  if (status && !status.enable_data_export) {
    return (
      <div className="tw-center-page" data-testid="dashboard-disabled">
        <Result
          icon={<BarChartOutlined className="tw-result-icon" />}
          title={t('disabled')}
          subTitle={t('disabledHint')}
        />
      </div>
    );
  }

  const query = (patch: Partial<DashboardDraft> = {}) => {
    const next = toQuery({ ...draft, ...patch });
    setApplied(next);
    if (JSON.stringify(next) === JSON.stringify(applied))
      void queryClient.invalidateQueries({ queryKey: DASHBOARD_KEY });
  };
  const empty = !usage.isFetching && summary.models.length === 0;

  return (
    <>
      <PageHeader title={t('title')} subtitle={admin ? t('subtitleAdmin') : t('subtitle')} />
      <DashboardFilters
        draft={draft}
        admin={admin}
        granularity={granularity}
        loading={usage.isFetching}
        onChange={(patch) => setDraft((d) => ({ ...d, ...patch }))}
        onGranularity={setGranularity}
        onQuery={query}
        onRefresh={() => void queryClient.invalidateQueries({ queryKey: DASHBOARD_KEY })}
      />
      <StatCards totals={summary.totals} rpm={rpm} tpm={tpm} loading={usage.isLoading} quotaText={quotaText} />
      <div className="tw-dash-charts">
        <Card
          variant="borderless"
          title={t('chart.consumption')}
          extra={
            <Segmented<Metric>
              size="small"
              value={metric}
              onChange={setMetric}
              options={(['quota', 'tokens', 'calls'] as const).map((m) => ({
                value: m,
                label: t(`chart.metric.${m}`),
              }))}
              data-testid="dashboard-metric"
            />
          }
          styles={{ body: { padding: 12 } }}
        >
          {empty ? (
            <Empty description={t('chart.empty')} className="tw-dash-empty" />
          ) : (
            <EChart option={barOption} height={mobile ? 300 : 380} testId="dashboard-consumption-chart" />
          )}
        </Card>
        <Card variant="borderless" title={t('chart.calls')} styles={{ body: { padding: 12 } }}>
          {empty ? (
            <Empty description={t('chart.empty')} className="tw-dash-empty" />
          ) : (
            <EChart option={pieOption} height={mobile ? 300 : 380} testId="dashboard-calls-chart" />
          )}
        </Card>
      </div>
    </>
  );
}
