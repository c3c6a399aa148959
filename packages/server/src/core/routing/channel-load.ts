/**
 * What the routing strategies measure of each channel on this node: calls in flight and an EWMA of the time to the
 * upstream's first byte. Every upstream attempt reports here (relay/pipeline/attempt-health.ts); the stats exist
 * only for the channels in the channel cache (`track` on every reload), so they are bounded by the channel list,
 * and reporting allocates nothing.
 */

/** Weight of a new latency sample in the average (the last ~5 samples count most). */
export const LATENCY_EWMA_ALPHA = 0.3;
/** A latency older than this is forgotten: the channel is explored again, and its next sample starts afresh. */
export const LATENCY_STALE_MS = 60_000;
/** A failed attempt (no answer, a timeout, 429 or 5xx) counts as a sample of at least this, so it never attracts calls. */
export const FAILED_ATTEMPT_LATENCY_MS = 5_000;

interface LoadStat {
  inflight: number;
  /** EWMA of the time to first byte, ms (meaningful once sampledAt > 0). */
  ewmaMs: number;
  /** When the last sample came (epoch ms); 0: never. */
  sampledAt: number;
}

/** One channel's load as the metrics show it. */
export interface ChannelLoadView {
  channelId: number;
  inflight: number;
  /** undefined: no sample in the last LATENCY_STALE_MS. */
  latencyMs: number | undefined;
}

export class ChannelLoad {
  private stats = new Map<number, LoadStat>();

  constructor(readonly clock: () => number = Date.now) {}

  /** Keeps the stats of `ids` (the channels now cached), drops the others and starts empty ones for new ids. */
  track(ids: Iterable<number>): void {
    const next = new Map<number, LoadStat>();
    for (const id of ids) next.set(id, this.stats.get(id) ?? { inflight: 0, ewmaMs: 0, sampledAt: 0 });
    this.stats = next;
  }

  /** An attempt on the channel started. */
  started(channelId: number): void {
    const s = this.stats.get(channelId);
    if (s) s.inflight++;
  }

  /**
   * An attempt on the channel ended: answered after `firstByteMs`, failed after `failedAfterMs` (a sample of at
   * least FAILED_ATTEMPT_LATENCY_MS and of the current average), or neither (NaN for both: it says nothing of the
   * upstream, e.g. the caller left).
   */
  finished(channelId: number, firstByteMs: number, failedAfterMs = NaN): void {
    const s = this.stats.get(channelId);
    if (!s) return;
    if (s.inflight > 0) s.inflight--;
    const now = this.clock();
    const fresh = s.sampledAt > 0 && now - s.sampledAt <= LATENCY_STALE_MS;
    let sample = firstByteMs;
    if (failedAfterMs >= 0) sample = Math.max(failedAfterMs, FAILED_ATTEMPT_LATENCY_MS, fresh ? s.ewmaMs : 0);
    if (!(sample >= 0)) return;
    s.ewmaMs = fresh ? s.ewmaMs + LATENCY_EWMA_ALPHA * (sample - s.ewmaMs) : sample;
    s.sampledAt = now;
  }

  /** Calls in flight on the channel on this node. */
  inflight(channelId: number): number {
    return this.stats.get(channelId)?.inflight ?? 0;
  }

  /** The channel's average time to first byte, ms; NaN without a sample in the last LATENCY_STALE_MS. */
  latency(channelId: number, now: number): number {
    const s = this.stats.get(channelId);
    return s && s.sampledAt > 0 && now - s.sampledAt <= LATENCY_STALE_MS ? s.ewmaMs : NaN;
  }

  /** Every tracked channel's load (for /metrics). */
  view(): ChannelLoadView[] {
    const now = this.clock();
    const out: ChannelLoadView[] = [];
    for (const [channelId, s] of this.stats) {
      const latency = this.latency(channelId, now);
      out.push({ channelId, inflight: s.inflight, latencyMs: Number.isNaN(latency) ? undefined : latency });
    }
    return out;
  }
}
