import type { Metric, Summary } from './aggregate';
import type { ChartOption } from '../../components/EChart';

/** Sixteen distinct hues (no two near-identical blues or yellows). */
const PALETTE = [
  '#1677ff',
  '#52c41a',
  '#fa8c16',
  '#722ed1',
  '#eb2f96',
  '#13c2c2',
  '#fadb14',
  '#f5222d',
  '#a0d911',
  '#2f54eb',
  '#9254de',
  '#08979c',
  '#ff7a45',
  '#c41d7f',
  '#5b8c00',
  '#8c8c8c',
];

/**
 * A colour per model, shared by the bars and the pie: chosen from the model's name, so a model keeps its colour
 * when the range or the user changes; a taken colour passes to the next free one (models in rank order).
 */
export function modelColors(models: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<number>();
  for (const model of models) {
    let i = [...model].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % PALETTE.length;
    for (let tries = 0; taken.has(i) && tries < PALETTE.length; tries++) i = (i + 1) % PALETTE.length;
    if (taken.size < PALETTE.length) taken.add(i);
    out.set(model, PALETTE[i]!);
  }
  return out;
}

interface TooltipParam {
  seriesName?: string;
  value?: unknown;
  color?: unknown;
  marker?: unknown;
  name?: string;
  percent?: number;
}

/** Stacked bars: one stack per time bucket, one segment per model, of the chosen metric. */
export function consumptionOption(
  s: Summary,
  metric: Metric,
  f: { value: (n: number) => string; axis: (n: number) => string },
  totalLabel: string,
  compact: boolean,
): ChartOption {
  const colors = modelColors(s.models.map((m) => m.model));
  return {
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      confine: true,
      formatter: (raw: unknown) => {
        const items = (raw as TooltipParam[])
          .filter((p) => Number(p.value) > 0)
          .sort((a, b) => Number(b.value) - Number(a.value));
        const total = items.reduce((sum, p) => sum + Number(p.value), 0);
        const head = (raw as TooltipParam[])[0]?.name ?? '';
        const lines = items.map(
          (p) => `${String(p.marker ?? '')}${escapeHtml(p.seriesName ?? '')}: <b>${f.value(Number(p.value))}</b>`,
        );
        return [`<b>${escapeHtml(head)}</b>`, ...lines, `${totalLabel}: <b>${f.value(total)}</b>`].join('<br/>');
      },
    },
    legend: { type: 'scroll', bottom: 0, itemWidth: 14, itemHeight: 10, itemGap: 12 },
    grid: { left: 8, right: 32, top: 16, bottom: 40, containLabel: true },
    xAxis: {
      type: 'category',
      data: s.buckets.map((b) => b.label),
      axisTick: { alignWithLabel: true },
      axisLabel: { hideOverlap: true },
    },
    yAxis: {
      type: 'value',
      axisLabel: { formatter: (v: number) => f.axis(v) },
      splitLine: { lineStyle: { opacity: 0.5 } },
    },
    series: s.models.map((m) => ({
      name: m.model,
      type: 'bar',
      stack: 'usage',
      data: s.series[metric].get(m.model) ?? [],
      itemStyle: { color: colors.get(m.model) },
      emphasis: { focus: 'series' },
      barMaxWidth: compact ? 18 : 42,
    })),
  } as ChartOption;
}

/** A ring of each model's share of the calls. */
export function callsOption(s: Summary, compact: boolean): ChartOption {
  const colors = modelColors(s.models.map((m) => m.model));
  return {
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: (p: unknown) =>
        `${String((p as TooltipParam).marker ?? '')}${escapeHtml((p as TooltipParam).name ?? '')}: <b>${Number((p as TooltipParam).value).toLocaleString()}</b> (${(p as TooltipParam).percent ?? 0}%)`,
    },
    // Up to a dozen models wrap in the legend; more scroll.
    legend: { type: s.models.length > 12 ? 'scroll' : 'plain', bottom: 0, itemWidth: 14, itemHeight: 10, itemGap: 8 },
    series: [
      {
        type: 'pie',
        radius: compact ? ['38%', '66%'] : ['40%', '68%'],
        center: ['50%', s.models.length > 3 ? '40%' : '45%'],
        itemStyle: { borderRadius: 4 },
        // Shares on the ring (names are in the legend and the tooltip); slices under 5% stay unlabelled.
        label: { position: 'inside', formatter: '{d}%', color: '#fff', fontSize: 11, fontWeight: 600 },
        minShowLabelAngle: 18,
        data: s.models.map((m) => ({ name: m.model, value: m.calls, itemStyle: { color: colors.get(m.model) } })),
      },
    ],
  } as ChartOption;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
