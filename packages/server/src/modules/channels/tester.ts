import type { Logger } from 'pino';
import { ErrorCode, type ErrorParams } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { ChannelProbe } from '../../core/channel-probe.js';
import type { OptionsService } from '../../core/options/service.js';
import { toCachedChannel, type CachedChannel } from '../../core/routing/channel-cache.js';
import { parseJsonObject, type ChannelRow, type MultiKeyInfo } from '../../core/routing/channel-row.js';
import { shouldAutoDisable } from './status.js';
import { eachLimited } from '../../lib/each-limited.js';

/** Channels tested at once by a test-all run. */
const CONCURRENCY = 4;
const FALLBACK_TEST_MODEL = 'gpt-4o-mini';

export interface TestOutcome {
  success: boolean;
  message: string;
  /** A failure's code (channel_test_failed) and the upstream's reason, for the console's text. */
  code?: ErrorCode;
  params?: ErrorParams;
  /** Seconds. */
  time: number;
}

/** A channel ready to test: when every key is disabled, the automatically disabled ones may be tried. */
function testable(row: ChannelRow): CachedChannel {
  const ch = toCachedChannel(row);
  if (ch.multiKey && !ch.keyEnabled.some(Boolean)) {
    const list = parseJsonObject<Partial<MultiKeyInfo>>(row.channel_info, {}).multi_key_status_list ?? {};
    ch.keyEnabled = ch.keys.map((_, i) => (list[String(i)] ?? 1) !== 2);
  }
  return ch;
}

const modelFor = (ch: CachedChannel, model?: string) => model || ch.testModel || ch.models[0] || FALLBACK_TEST_MODEL;

/** What the tester uses of the channels service (which owns the tester). */
export interface TestedChannels {
  readonly store: { all(): Promise<ChannelRow[]> };
  get(id: number): Promise<ChannelRow>;
  recordTest(id: number, responseMs: number, error?: string): Promise<void>;
  enableChannel(id: number): Promise<boolean>;
  autoDisableChannel(id: number, reason: string): Promise<boolean>;
  tripBreaker(id: number): void;
}

/** Where the tester finds the upstream probe (the application context). */
export interface ProbeHost {
  channelProbe: ChannelProbe;
}

/**
 * Channel tests: one channel on demand, or all enabled and auto-disabled channels in the background with
 * limited concurrency, recording response times and applying the automatic enable/disable options.
 */
export class ChannelTester {
  private current: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly channels: TestedChannels,
    private readonly options: OptionsService,
    private readonly log: Logger,
  ) {}

  get running(): boolean {
    return this.current !== undefined;
  }

  /** Tests one channel with `model` (else its test model, else its first model) and records the response time. */
  async testOne(ctx: ProbeHost, id: number, model?: string): Promise<TestOutcome> {
    const ch = testable(await this.channels.get(id));
    const res = await ctx.channelProbe(ch, modelFor(ch, model));
    await this.channels.recordTest(id, res.elapsedMs, res.ok ? undefined : res.message);
    const time = Math.round(res.elapsedMs) / 1000;
    if (res.ok) return { success: true, message: `test passed with ${modelFor(ch, model)}`, time };
    // A failed test of an enabled channel opens its breaker, as a failed call does: routing passes it over.
    if (ch.status === 1) this.channels.tripBreaker(id);
    return {
      success: false,
      message: res.message,
      code: ErrorCode.ChannelTestFailed,
      params: { reason: res.message },
      time,
    };
  }

  /** Starts a background run over enabled and auto-disabled channels (`disabledOnly`: status 3 only). */
  startAll(ctx: ProbeHost, disabledOnly = false): void {
    if (this.stopped) return;
    if (this.current)
      throw coded(ErrorCode.ChannelTestRunning, 'a test of all channels is already running', undefined, 409);
    this.current = this.runAll(ctx, disabledOnly)
      .catch((err: unknown) => this.log.warn({ err }, 'channel test run failed'))
      .finally(() => {
        this.current = undefined;
      });
  }

  /** Waits for the current run (tests and the app's shutdown). */
  async idle(): Promise<void> {
    await this.current;
  }

  /** No new run or channel test starts; waits for the ones under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.current;
  }

  private async runAll(ctx: ProbeHost, disabledOnly: boolean): Promise<void> {
    const rows = (await this.channels.store.all()).filter((r) =>
      disabledOnly ? r.status === 3 : r.status === 1 || r.status === 3,
    );
    await eachLimited(
      rows,
      CONCURRENCY,
      async (row) => {
        try {
          await this.testAndApply(ctx, row);
        } catch (err) {
          this.log.warn({ err, channel_id: row.id }, 'channel test failed to run');
        }
      },
      () => this.stopped,
    );
    this.log.info({ channels: rows.length, disabledOnly }, 'channel test run finished');
  }

  private async testAndApply(ctx: ProbeHost, row: ChannelRow): Promise<void> {
    const ch = testable(row);
    const res = await ctx.channelProbe(ch, modelFor(ch));
    await this.channels.recordTest(row.id, res.elapsedMs, res.ok ? undefined : res.message);
    const thresholdMs = this.options.num('ChannelDisableThreshold') * 1000;
    const tooSlow = thresholdMs > 0 && res.elapsedMs > thresholdMs;
    // Only a permanent failure (rejected key, closed account, a disable keyword) disables; a transient one
    // (no answer, timeout, 429, 5xx) opens the channel's breaker for its cool-down instead.
    const permanent =
      !res.ok && shouldAutoDisable(res.status, res.message, this.options.get('AutomaticDisableKeywords'));
    if (row.status === 3 && res.ok && !tooSlow && this.options.bool('AutomaticEnableChannelEnabled')) {
      await this.channels.enableChannel(row.id);
    } else if (row.status === 1 && !res.ok && !permanent) {
      this.channels.tripBreaker(row.id);
    } else if (
      row.status === 1 &&
      (permanent || tooSlow) &&
      row.auto_ban === 1 &&
      this.options.bool('AutomaticDisableChannelEnabled')
    ) {
      const reason = res.ok
        ? `test took ${(res.elapsedMs / 1000).toFixed(2)}s, over the ${thresholdMs / 1000}s threshold`
        : `test failed: ${res.message}`;
      await this.channels.autoDisableChannel(row.id, reason);
    }
  }

  /** Every `minutes`, a background test of auto-disabled channels (auto-enable); returns the stop function. */
  schedule(ctx: ProbeHost, minutes: number): () => void {
    const timer = setInterval(() => {
      if (!this.current) this.startAll(ctx, true);
    }, minutes * 60_000);
    timer.unref();
    return () => clearInterval(timer);
  }
}
