import type { OptionsService } from '../options/service.js';

/** The circuit breaker thresholds (ChannelBreaker* options), in milliseconds where they are durations. */
export interface BreakerSettings {
  enabled: boolean;
  /** Length of the sliding window failures are counted in. */
  windowMs: number;
  /** Failures in the window before the error rate is looked at. */
  minFailures: number;
  /** Share of failed calls in the window (0–1) that opens the breaker, once minFailures is reached. */
  errorRate: number;
  /** First cool-down; each failed probe doubles it. */
  cooldownMs: number;
  /** The longest cool-down. */
  maxCooldownMs: number;
}

const SECOND = 1000;

export function readBreakerSettings(o: OptionsService): BreakerSettings {
  const cooldownMs = o.num('ChannelBreakerCooldownSeconds') * SECOND;
  return {
    enabled: o.bool('ChannelBreakerEnabled'),
    windowMs: o.num('ChannelBreakerWindowSeconds') * SECOND,
    minFailures: o.num('ChannelBreakerMinFailures'),
    errorRate: o.num('ChannelBreakerErrorRate'),
    cooldownMs,
    maxCooldownMs: Math.max(cooldownMs, o.num('ChannelBreakerMaxCooldownSeconds') * SECOND),
  };
}

/** The current BreakerSettings: dropped when an option changes, read again on next use. */
export class BreakerSettingsCache {
  private current: BreakerSettings | undefined;

  constructor(private readonly options: OptionsService) {
    options.onChange(() => {
      this.current = undefined;
    });
  }

  get(): BreakerSettings {
    return (this.current ??= readBreakerSettings(this.options));
  }
}
