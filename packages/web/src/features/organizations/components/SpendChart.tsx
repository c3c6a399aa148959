import type { SpendRow } from '@tollway/shared';
import { BarChart, LineChart, type BarSeriesOption, type LineSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  TooltipComponent,
  type GridComponentOption,
  type TooltipComponentOption,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useMemo, useRef } from 'react';
import { useTheme } from '../../../lib/theme';

echarts.use([BarChart, LineChart, GridComponent, TooltipComponent, CanvasRenderer]);
type Option = echarts.ComposeOption<BarSeriesOption | LineSeriesOption | GridComponentOption | TooltipComponentOption>;

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
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | undefined>(undefined);
  const mode = useTheme();
  const option = useMemo<Option>(
    () => ({
      backgroundColor: 'transparent',
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

  useEffect(() => {
    const el = box.current!;
    const c = echarts.init(el, mode === 'dark' ? 'dark' : undefined, { renderer: 'canvas' });
    chart.current = c;
    const ro = new ResizeObserver(() => c.resize());
    ro.observe(el);
    return () => {
      ro.disconnect();
      c.dispose();
      chart.current = undefined;
    };
  }, [mode]);
  useEffect(() => {
    chart.current?.setOption(option, true);
  }, [option, mode]);

  return <div ref={box} style={{ width: '100%', height: CHART_HEIGHT }} data-testid="spend-chart" role="img" />;
}
