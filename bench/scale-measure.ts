// Measures shared by the scale rows (bench/scale.ts, bench/h2-upstream.ts): percentiles, a process's RSS over time and processes' CPU.
import fs from 'node:fs';
import { processCpuSeconds } from './measure.js';

const RSS_SAMPLE_MS = 100;
const KB = 1024;

export const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** A process's resident memory now, bytes (Linux /proc; this process's own elsewhere). */
export function rssOf(pid: number = process.pid): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) return Number(m[1]) * KB;
  } catch {
    // Not Linux, or the process is gone.
  }
  return pid === process.pid ? process.memoryUsage.rss() : 0;
}

/** Samples a process's RSS every RSS_SAMPLE_MS until stopped; `stop` answers the peak, `samples` the series. */
export class RssSampler {
  readonly samples: { atMs: number; rss: number }[] = [];
  private peak = 0;
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number = process.pid) {
    this.sample();
    this.timer = setInterval(() => this.sample(), RSS_SAMPLE_MS);
  }

  private sample(): void {
    const rss = rssOf(this.pid);
    this.peak = Math.max(this.peak, rss);
    this.samples.push({ atMs: performance.now() - this.started, rss });
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

export const mb = (bytes: number): string => (bytes / KB / KB).toFixed(0);

/** Processes' CPU use from now until `stop`: per process, the mean over that time in % of one core. */
export class CpuMeter {
  private readonly first: number[];
  private readonly started = performance.now();

  constructor(private readonly pids: number[]) {
    this.first = pids.map((p) => processCpuSeconds(p));
  }

  stop(): number[] {
    const s = (performance.now() - this.started) / 1000;
    return this.pids.map((p, i) => ((processCpuSeconds(p) - this.first[i]!) / s) * 100);
  }
}
