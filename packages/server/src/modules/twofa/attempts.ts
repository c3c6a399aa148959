import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import { slidingHit, slidingRead, type WindowCounters } from '../../lib/window-counters.js';

/**
 * Wrong codes allowed per user in a sliding window (the current fixed window plus the previous one weighted by the
 * share still inside, as the sign-in limit counts); past it every code is refused until older failures slide out.
 */
export const MAX_FAILURES_PER_USER = 5;
/** Wrong codes allowed from one address in a sliding window, whatever the account. */
export const MAX_FAILURES_PER_IP = 20;
export const FAILURE_WINDOW_SECONDS = 300;
/** Codes tried per user in a sliding window, right or wrong: counted before checking, so a burst cannot outrun the failure count. */
export const MAX_TRIES_PER_USER = 15;

const TOO_MANY = 'too many wrong verification codes; try again in a few minutes';

/** Counts wrong two-factor codes per user and per client address (memory, or Redis in a cluster). */
export class TwoFactorAttempts {
  constructor(private readonly counters: WindowCounters) {}

  async userLocked(userId: number, now = Date.now()): Promise<boolean> {
    return (await this.failures(`2fa-fail:user:${userId}`, now)) >= MAX_FAILURES_PER_USER;
  }

  /** Counts the try, then refuses with 429 while the user or the address is over a limit (before any code is looked at). */
  async assertOpen(userId: number, ip: string): Promise<void> {
    const now = Date.now();
    const tries = await slidingHit(this.counters, `2fa-try:user:${userId}`, FAILURE_WINDOW_SECONDS, now);
    const byIp = await this.failures(`2fa-fail:ip:${ip}`, now);
    if (tries > MAX_TRIES_PER_USER || byIp >= MAX_FAILURES_PER_IP || (await this.userLocked(userId, now)))
      throw coded(ErrorCode.TwoFactorTooManyTries, TOO_MANY, undefined, 429);
  }

  /** Failures under `key` in the sliding window ending `now`. */
  private async failures(key: string, now: number): Promise<number> {
    return slidingRead(this.counters, key, FAILURE_WINDOW_SECONDS, now);
  }

  async fail(userId: number, ip: string): Promise<void> {
    const now = Date.now();
    await this.counters.incr(`2fa-fail:user:${userId}`, FAILURE_WINDOW_SECONDS, now);
    await this.counters.incr(`2fa-fail:ip:${ip}`, FAILURE_WINDOW_SECONDS, now);
  }
}
