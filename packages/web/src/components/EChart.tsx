import {
  BarChart,
  LineChart,
  PieChart,
  type BarSeriesOption,
  type LineSeriesOption,
  type PieSeriesOption,
} from 'echarts/charts';
import {
  GridComponent,
  LegendComponent,
  TooltipComponent,
  type GridComponentOption,
  type LegendComponentOption,
  type TooltipComponentOption,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';
import { useTheme } from '../lib/theme';

/** The ECharts parts a console chart may draw (bars, lines, pies, grid, legend, tooltip on canvas): a small bundle. */
echarts.use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export type ChartOption = echarts.ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | PieSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | TooltipComponentOption
>;

/**
 * One ECharts canvas for any feature: follows the console theme (re-created on a theme switch) and its box's size.
 * `label`, when given, is the picture's accessible name.
 */
export function EChart({
  option,
  height,
  testId,
  label,
}: {
  option: ChartOption;
  height: number;
  testId: string;
  label?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | undefined>(undefined);
  const mode = useTheme();

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
    chart.current?.setOption({ backgroundColor: 'transparent', ...option }, true);
  }, [option, mode]);

  const named = label === undefined ? {} : { role: 'img', 'aria-label': label };
  return <div ref={box} style={{ width: '100%', height }} data-testid={testId} {...named} />;
}
