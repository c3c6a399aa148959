import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { WindowCounters } from '../../lib/window-counters.js';

/** Wrong codes allowed per user in one window; then every code is refused until the window ends. */
export const MAX_FAILURES_PER_USER = 5;
/** Wrong codes allowed from one address in one window, whatever the account. */
export const MAX_FAILURES_PER_IP = 20;
export const FAILURE_WINDOW_SECONDS = 300;
/** Codes tried per user in one window, right or wrong: counted before checking, so a burst cannot outrun the failure count. */
export const MAX_TRIES_PER_USER = 15;

const TOO_MANY = 'too many wrong verification codes; try again in a few minutes';

/** Counts wrong two-factor codes per user and per client address (memory, or Redis in a cluster). */
export class TwoFactorAttempts {
  constructor(private readonly counters: WindowCounters) {}

  async userLocked(userId: number): Promise<boolean> {
    return (await this.counters.get(`2fa-fail:user:${userId}`, FAILURE_WINDOW_SECONDS)) >= MAX_FAILURES_PER_USER;
  }

  /** Counts the try, then refuses with 429 while the user or the address is over a limit (before any code is looked at). */
  async assertOpen(userId: number, ip: string): Promise<void> {
    const tries = await this.counters.incr(`2fa-try:user:${userId}`, FAILURE_WINDOW_SECONDS);
    const byIp = await this.counters.get(`2fa-fail:ip:${ip}`, FAILURE_WINDOW_SECONDS);
    if (tries > MAX_TRIES_PER_USER || byIp >= MAX_FAILURES_PER_IP || (await this.userLocked(userId)))
      throw coded(ErrorCode.TwoFactorTooManyTries, TOO_MANY, undefined, 429);
  }

  async fail(userId: number, ip: string): Promise<void> {
    await this.counters.incr(`2fa-fail:user:${userId}`, FAILURE_WINDOW_SECONDS);
    await this.counters.incr(`2fa-fail:ip:${ip}`, FAILURE_WINDOW_SECONDS);
  }
}
