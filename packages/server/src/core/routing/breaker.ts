import type { BreakerSettings } from './breaker-settings.js';

export type BreakerState = 'closed' | 'open' | 'half_open';

/** How an upstream attempt ended for its channel's health: failed, answered, or no verdict (the caller's fault). */
export type Outcome = 'failure' | 'success' | 'neutral';

/** Buckets the sliding window is cut into. */
const BUCKETS = 12;
/** Latencies kept for the median. */
const LATENCY_SAMPLES = 64;
/** A probe that reported nothing for this long is given again. */
export const PROBE_LEASE_MS = 120_000;

interface Bucket {
  start: number;
  requests: number;
  failures: number;
}

/** A change another node should learn of: the breaker opened (until, opens), half-opened or closed. */
export interface Transition {
  state: BreakerState;
  until: number;
  opens: number;
}

/**
 * One channel's or key's circuit breaker. Closed: calls pass and are counted in a sliding window; at least
 * minFailures failures making up errorRate of the window's calls open it. Open: skipped until the cool-down
 * ends. Half-open: one probe call passes; success closes it, failure opens it again with twice the cool-down.
 * `local`: the breaker half-opens by itself when the cool-down ends (no cluster claims the probe).
 */
export class Breaker {
  state: BreakerState = 'closed';
  until = 0;
  /** Openings since it last closed (the cool-down doubles with each). */
  opens = 0;
  /** Half-open: this node may send the probe now. */
  probeReady = false;
  /** Half-open: when this node's probe went out (0: none out). */
  probeSince = 0;
  /** When it last changed state. */
  since = 0;
  private readonly buckets: Bucket[] = Array.from({ length: BUCKETS }, () => ({ start: 0, requests: 0, failures: 0 }));
  private readonly latencies = new Float64Array(LATENCY_SAMPLES);
  private readonly latencyAt = new Float64Array(LATENCY_SAMPLES);
  private latencyNext = 0;

  constructor(private readonly local: boolean) {}

  /** Whether selection should skip it now (no probe to give). */
  blocked(now: number): boolean {
    if (this.state === 'closed') return false;
    if (this.state === 'open') {
      if (now < this.until || !this.local) return true;
      this.halfOpen(true, now);
      return false;
    }
    if (this.local && !this.probeReady && now - this.probeSince >= PROBE_LEASE_MS) this.probeReady = true;
    return !this.probeReady;
  }

  /** The call picked it: a half-open breaker's probe is now out. */
  take(now: number): void {
    if (this.state !== 'half_open' || !this.probeReady) return;
    this.probeReady = false;
    this.probeSince = now;
  }

  halfOpen(probeReady: boolean, now: number): void {
    this.state = 'half_open';
    this.probeReady = probeReady;
    this.probeSince = probeReady ? 0 : now;
    this.since = now;
  }

  /** Counts an attempt's outcome; returns the transition it caused, if any (`trip` false: a closed one never opens). */
  record(outcome: Outcome, latencyMs: number, s: BreakerSettings, now: number, trip = true): Transition | undefined {
    if (outcome === 'neutral') {
      if (this.state === 'half_open' && this.probeSince && !this.probeReady) return this.releaseProbe(now);
      return undefined;
    }
    const failed = outcome === 'failure';
    this.count(failed, now, s.windowMs);
    if (!failed && Number.isFinite(latencyMs)) this.sample(latencyMs, now);
    if (this.state === 'half_open') return failed ? this.open(s, now) : this.close(now);
    if (this.state === 'open' || !failed || !trip) return undefined;
    const { requests, failures } = this.window(now, s.windowMs);
    if (failures >= s.minFailures && failures >= s.errorRate * requests) return this.open(s, now);
    return undefined;
  }

  /** Back to open with the cool-down over: the probe is claimed anew (a lease ran out). */
  due(now: number): void {
    this.state = 'open';
    this.probeReady = false;
    this.probeSince = 0;
    this.since = now;
  }

  /** Opens it now (a failed test, a failed probe, a tripped window). */
  open(s: BreakerSettings, now: number): Transition {
    this.opens++;
    this.state = 'open';
    this.until = now + Math.min(s.cooldownMs * 2 ** (this.opens - 1), s.maxCooldownMs);
    this.probeReady = false;
    this.probeSince = 0;
    this.since = now;
    return { state: 'open', until: this.until, opens: this.opens };
  }

  close(now: number): Transition {
    this.state = 'closed';
    this.until = 0;
    this.opens = 0;
    this.probeReady = false;
    this.probeSince = 0;
    this.since = now;
    for (const b of this.buckets) b.start = b.requests = b.failures = 0;
    return { state: 'closed', until: 0, opens: 0 };
  }

  /** A probe with no verdict: locally the next call probes; in a cluster the breaker is due for a new claim. */
  private releaseProbe(now: number): Transition | undefined {
    this.probeSince = 0;
    if (this.local) {
      this.probeReady = true;
      return undefined;
    }
    this.state = 'open';
    this.since = now;
    return { state: 'open', until: this.until, opens: this.opens };
  }

  /** Takes another node's state (open with its until and count, half-open with the probe elsewhere, closed). */
  apply(t: Transition, now: number): void {
    if (t.state === 'closed') {
      if (this.state !== 'closed') this.close(now);
      return;
    }
    if (t.state === 'half_open') {
      if (this.state !== 'half_open') this.halfOpen(false, now);
      return;
    }
    if (this.state !== 'closed' && this.until >= t.until) return;
    this.state = 'open';
    this.until = t.until;
    this.opens = Math.max(this.opens, t.opens);
    this.probeReady = false;
    this.probeSince = 0;
    this.since = now;
  }

  /** Calls and failures within the window ending now. */
  window(now: number, windowMs: number): { requests: number; failures: number } {
    let requests = 0;
    let failures = 0;
    for (const b of this.buckets) {
      if (b.start > now - windowMs) {
        requests += b.requests;
        failures += b.failures;
      }
    }
    return { requests, failures };
  }

  /** Median latency of the answered calls within the window; undefined when there were none. */
  p50(now: number, windowMs: number): number | undefined {
    const values: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++)
      if (this.latencyAt[i]! > now - windowMs && this.latencyAt[i]! > 0) values.push(this.latencies[i]!);
    if (values.length === 0) return undefined;
    values.sort((a, b) => a - b);
    const mid = values.length >> 1;
    return values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
  }

  private count(failed: boolean, now: number, windowMs: number): void {
    const width = Math.max(1, Math.ceil(windowMs / BUCKETS));
    const start = now - (now % width);
    const b = this.buckets[Math.floor(start / width) % BUCKETS]!;
    if (b.start !== start) {
      b.start = start;
      b.requests = 0;
      b.failures = 0;
    }
    b.requests++;
    if (failed) b.failures++;
  }

  private sample(latencyMs: number, now: number): void {
    this.latencies[this.latencyNext] = latencyMs;
    this.latencyAt[this.latencyNext] = now;
    this.latencyNext = (this.latencyNext + 1) % LATENCY_SAMPLES;
  }
}

/** An upstream status as breakers count it: no answer (0), timeouts, 429 and 5xx fail; any other answer shows the upstream alive. */
export function outcomeOfStatus(status: number): Outcome {
  return status === 0 || status === 408 || status === 429 || status >= 500 ? 'failure' : 'success';
}
