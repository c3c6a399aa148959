import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastHistogram } from '../../src/observability/fast-metrics.js';

describe('fast counter and histogram families', () => {
  it('render as Prometheus counters and cumulative histograms', async () => {
    const registry = new Registry();
    const calls = new FastCounter('t_calls_total', 'Calls', ['route', 'code'], registry);
    const latency = new FastHistogram('t_latency_seconds', 'Latency', ['route'], registry, [0.1, 1, 10]);
    calls.inc(['/a', '2xx']);
    calls.inc(['/a', '2xx'], 2);
    calls.inc(['/b', '5xx']);
    const b = calls.child('/b', '4xx');
    b.value += 4;
    for (const v of [0.05, 0.1, 0.5, 20]) latency.observe(['/a'], v);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE t_calls_total counter');
    expect(text).toContain('t_calls_total{route="/a",code="2xx"} 3');
    expect(text).toContain('t_calls_total{route="/b",code="5xx"} 1');
    expect(text).toContain('t_calls_total{route="/b",code="4xx"} 4');
    expect(text).toContain('# TYPE t_latency_seconds histogram');
    for (const line of [
      't_latency_seconds_bucket{route="/a",le="0.1"} 2',
      't_latency_seconds_bucket{route="/a",le="1"} 3',
      't_latency_seconds_bucket{route="/a",le="10"} 3',
      't_latency_seconds_bucket{route="/a",le="+Inf"} 4',
      't_latency_seconds_sum{route="/a"} 20.65',
      't_latency_seconds_count{route="/a"} 4',
    ])
      expect(text).toContain(line);
  });
});
