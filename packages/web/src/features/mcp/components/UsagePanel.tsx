import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { McpDayUsage, McpToolUsage, McpUsageQuery } from '@tollway/shared';
import { Alert, Card, DatePicker, Empty, Flex, Select, Table, Tag, type TableColumnsType } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo, useState } from 'react';
import type { HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { cardColumns, cardLayout } from '../../../components/cardTable';
import { EChart, type ChartOption } from '../../../components/EChart';
import { useQuotaFormat } from '../../../lib/self';
import { useIsMobile } from '../../../lib/useIsMobile';
import { fetchUsage, MCP_USAGE_KEY, type McpServer } from '../api';

const DEFAULT_DAYS = 7;
const CHART_HEIGHT = 300;
type Range = [Dayjs, Dayjs];

/** The days of the range (each day's start, epoch seconds, local time) as the x axis. */
function daysOf(range: Range): number[] {
  const out: number[] = [];
  for (let d = range[0].startOf('day'); !d.isAfter(range[1]); d = d.add(1, 'day')) out.push(d.unix());
  return out;
}

/** Stacked bars: calls per day, one series per server. */
function chartOption(days: number[], rows: McpDayUsage[]): ChartOption {
  const servers = [...new Set(rows.map((r) => r.server))].sort();
  const at = new Map(rows.map((r) => [`${r.day}:${r.server}`, r.calls]));
  return {
    tooltip: { trigger: 'axis', confine: true },
    legend: { type: 'scroll', top: 0 },
    grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: days.map((d) => dayjs.unix(d).format('MM-DD')), axisLabel: { hideOverlap: true } },
    yAxis: { type: 'value', minInterval: 1 },
    series: servers.map((server) => ({
      type: 'bar',
      name: server,
      stack: 'calls',
      barMaxWidth: 42,
      data: days.map((d) => at.get(`${d}:${server}`) ?? 0),
    })),
  };
}

/** Tool calls of a range: calls per day by server, and per tool its calls by status, quota and average duration. */
export function UsagePanel({ servers }: { servers: McpServer[] }) {
  const { t } = useTranslation('mcp');
  const fmt = useQuotaFormat();
  const mobile = useIsMobile();
  const [range, setRange] = useState<Range>(() => [
    dayjs()
      .subtract(DEFAULT_DAYS - 1, 'day')
      .startOf('day'),
    dayjs().endOf('day'),
  ]);
  const [server, setServer] = useState<string | undefined>(undefined);
  const query: McpUsageQuery = {
    start_timestamp: range[0].unix(),
    end_timestamp: range[1].unix(),
    server,
    // Minutes east of UTC: the days of the chart are the viewer's.
    utc_offset: -new Date().getTimezoneOffset(),
  };
  const usage = useQuery({
    queryKey: [...MCP_USAGE_KEY, query],
    queryFn: () => fetchUsage(query),
    placeholderData: keepPreviousData,
  });
  const days = useMemo(() => daysOf(range), [range]);
  const option = useMemo(() => chartOption(days, usage.data?.days ?? []), [days, usage.data]);
  const tools = usage.data?.tools ?? [];

  const statusCol = (key: keyof McpToolUsage['statuses'], color?: string) => ({
    title: t(`usage.status.${key}`),
    key,
    width: 90,
    render: (_: unknown, r: McpToolUsage) =>
      r.statuses[key] > 0 && color ? <Tag color={color}>{r.statuses[key]}</Tag> : r.statuses[key],
  });
  const columns: TableColumnsType<McpToolUsage> = [
    { title: t('usage.server'), dataIndex: 'server', key: 'server', width: 140 },
    { title: t('usage.tool'), dataIndex: 'tool', key: 'tool', width: 180 },
    { title: t('usage.calls'), dataIndex: 'calls', key: 'calls', width: 90 },
    statusCol('ok'),
    statusCol('tool_error', 'warning'),
    statusCol('error', 'error'),
    statusCol('cancelled', 'default'),
    { title: t('usage.quota'), key: 'quota', width: 110, render: (_, r) => fmt(r.quota) },
    {
      title: t('usage.duration'),
      key: 'duration',
      width: 120,
      render: (_, r) => t('usage.ms', { value: r.avg_duration_ms }),
    },
  ];

  return (
    <Card title={t('usage.title')} variant="borderless" data-testid="mcp-usage">
      <Flex wrap gap={8} style={{ marginBottom: 16 }}>
        <DatePicker.RangePicker
          value={range}
          allowClear={false}
          onChange={(v) => {
            if (v?.[0] && v[1]) setRange([v[0].startOf('day'), v[1].endOf('day')]);
          }}
          aria-label={t('usage.range')}
          data-testid="mcp-usage-range"
        />
        <Select
          allowClear
          value={server}
          onChange={(v: string | undefined) => setServer(v)}
          placeholder={t('usage.allServers')}
          options={servers.map((s) => ({ value: s.name, label: s.name }))}
          style={{ minWidth: 180 }}
          aria-label={t('usage.server')}
          data-testid="mcp-usage-server"
        />
      </Flex>
      {usage.data && !usage.data.statuses_complete ? (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          title={t('usage.partial', { rows: usage.data.rows_read_max })}
        />
      ) : null}
      {tools.length === 0 && !usage.isFetching ? (
        <Empty description={t('usage.empty')} />
      ) : (
        <EChart option={option} height={CHART_HEIGHT} testId="mcp-usage-chart" label={t('usage.chart')} />
      )}
      {tools.length === 0 ? null : (
        <Table<McpToolUsage>
          rowKey={(r) => `${r.server}/${r.tool}`}
          size="small"
          style={{ marginTop: 16 }}
          columns={cardColumns(columns, mobile)}
          dataSource={tools}
          loading={usage.isFetching}
          {...cardLayout(mobile, 1040)}
          onRow={(r) => ({ 'data-testid': `mcp-usage-row-${r.server}-${r.tool}` }) as HTMLAttributes<HTMLElement>}
          pagination={tools.length > 20 ? { pageSize: 20, showSizeChanger: false } : false}
        />
      )}
    </Card>
  );
}
