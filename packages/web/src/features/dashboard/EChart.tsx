import { useEffect, useRef } from 'react';
import { useTheme } from '../../lib/theme';
import { echarts, type ChartOption } from './echarts';

/** One ECharts canvas that follows the console theme (re-created on a theme switch) and its box's size. */
export function EChart({ option, height, testId }: { option: ChartOption; height: number; testId: string }) {
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

  return <div ref={box} style={{ width: '100%', height }} data-testid={testId} />;
}
