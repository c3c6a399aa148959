// Event loop delay and garbage collections counted for the performance panel, from its first read or last reset.
import { monitorEventLoopDelay, performance, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import type { EventLoopUtilization } from 'node:perf_hooks';

/** Resolution of the event loop delay histogram, ms. */
const DELAY_RESOLUTION_MS = 20;
const NS_PER_MS = 1e6;

interface Counters {
  delay: IntervalHistogram;
  loopStart: EventLoopUtilization;
  gcCount: number;
  gcPauseMs: number;
  /** Unix ms of the start or last reset. */
  since: number;
}

let counters: Counters | undefined;

/** Starts counting once per process (the histogram and the GC observer cost next to nothing while running). */
function started(): Counters {
  if (counters) return counters;
  const delay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  delay.enable();
  const c: Counters = {
    delay,
    loopStart: performance.eventLoopUtilization(),
    gcCount: 0,
    gcPauseMs: 0,
    since: Date.now(),
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      c.gcCount++;
      c.gcPauseMs += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  counters = c;
  return c;
}

const ms = (ns: number) => (Number.isFinite(ns) ? Math.round((ns / NS_PER_MS) * 100) / 100 : 0);

export interface RuntimeCounters {
  /** Unix seconds since when the counts run. */
  since: number;
  gc_count: number;
  gc_pause_ms: number;
  event_loop: {
    /** Share of the time the loop was busy, 0–1. */
    utilization: number;
    delay_mean_ms: number;
    delay_p50_ms: number;
    delay_p99_ms: number;
    delay_max_ms: number;
  };
}

export function runtimeCounters(): RuntimeCounters {
  const c = started();
  const loop = performance.eventLoopUtilization(c.loopStart);
  const d = c.delay;
  const measured = d.count > 0;
  return {
    since: Math.floor(c.since / 1000),
    gc_count: c.gcCount,
    gc_pause_ms: Math.round(c.gcPauseMs * 100) / 100,
    event_loop: {
      utilization: Math.round(loop.utilization * 10_000) / 10_000,
      delay_mean_ms: measured ? ms(d.mean) : 0,
      delay_p50_ms: measured ? ms(d.percentile(50)) : 0,
      delay_p99_ms: measured ? ms(d.percentile(99)) : 0,
      delay_max_ms: measured ? ms(d.max) : 0,
    },
  };
}

/** Starts every count again from now. */
export function resetRuntimeCounters(): void {
  const c = started();
  c.delay.reset();
  c.loopStart = performance.eventLoopUtilization();
  c.gcCount = 0;
  c.gcPauseMs = 0;
  c.since = Date.now();
}
