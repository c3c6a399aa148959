import type { SpendRow } from '@tollway/shared';
import type { BarSeriesOption, LineSeriesOption } from 'echarts/charts';
import { useMemo } from 'react';
import { EChart, type ChartOption } from '../../../components/EChart';

const COLOR = '#1677ff';
const CHART_HEIGHT = 320;

/** The spend of each row (a team, member, model, day…) as bars or a line, on canvas; follows the theme and its box. */
export function SpendChart({
  rows,
  kind,
  value,
}: {
  rows: SpendRow[];
  kind: 'bar' | 'line';
  value: (n: number) => string;
}) {
  const option = useMemo<ChartOption>(
    () => ({
      tooltip: { trigger: 'axis', confine: true, valueFormatter: (v) => value(Number(v)) },
      grid: { left: 8, right: 24, top: 16, bottom: 8, containLabel: true },
      xAxis: { type: 'category', data: rows.map((r) => r.label || r.key), axisLabel: { hideOverlap: true } },
      yAxis: { type: 'value', axisLabel: { formatter: (v: number) => value(v) } },
      series: [
        {
          type: kind,
          name: '',
          data: rows.map((r) => r.quota),
          itemStyle: { color: COLOR },
          barMaxWidth: 42,
          ...(kind === 'line' ? { smooth: true, areaStyle: { opacity: 0.15 } } : {}),
        } as BarSeriesOption | LineSeriesOption,
      ],
    }),
    [rows, kind, value],
  );

  return <EChart option={option} height={CHART_HEIGHT} testId="spend-chart" />;
}
