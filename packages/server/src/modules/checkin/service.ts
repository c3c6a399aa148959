import { randomInt } from 'node:crypto';
import { renderQuota, type CheckInStatus, type CheckinStats, ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';
import { dayIn, nowSeconds } from '../../lib/time.js';
import type { OptionsService } from '../../core/options/service.js';
import type { UsersService } from '../users/service.js';
import { CheckInStore } from './store.js';

const MSG_DISABLED = 'the administrator has not enabled check-in';
/** Length of YYYY-MM. */
const MONTH_LENGTH = 7;

/** Rewards are drawn in steps of this many quota units (the settings' step). */
export const REWARD_STEP = 100;

/**
 * The reward of one check-in: `min` when there is no larger maximum, else a random value from min, min + step,
 * … up to max (max itself when max − min is a whole number of steps).
 */
export function drawReward(min: number, max: number, pick: (n: number) => number = (n) => randomInt(n)): number {
  if (max <= min) return min;
  const steps = Math.floor((max - min) / REWARD_STEP);
  return min + REWARD_STEP * pick(steps + 1);
}

/** Daily check-in: once per user per calendar day of the server's time zone. */
export class CheckInService {
  constructor(
    private readonly store: CheckInStore,
    private readonly users: UsersService,
    private readonly options: OptionsService,
    private readonly timeZone: string,
  ) {}

  private range(): { min: number; max: number } {
    const min = this.options.num('CheckInQuota');
    return { min, max: Math.max(min, this.options.num('CheckInMaxQuota')) };
  }

  async status(userId: number): Promise<CheckInStatus> {
    const enabled = this.options.bool('CheckInEnabled');
    const day = dayIn(this.timeZone);
    const reward = await this.store.rewardOn(userId, day);
    const { min, max } = this.range();
    return {
      enabled,
      can_check_in: enabled && reward === undefined,
      checked_in: reward !== undefined,
      quota: reward ?? 0,
      min_quota: min,
      max_quota: max,
      day,
    };
  }

  /** new-api's view: the reward range, all-time totals and the check-ins of `month` (YYYY-MM, default this month). */
  async stats(userId: number, month?: string): Promise<CheckinStats> {
    if (!this.options.bool('CheckInEnabled')) throw coded(ErrorCode.CheckInDisabled, MSG_DISABLED);
    const today = dayIn(this.timeZone);
    const m = month ?? today.slice(0, MONTH_LENGTH);
    const [records, totals] = await Promise.all([
      this.store.between(userId, `${m}-01`, `${m}-31`),
      this.store.totals(userId),
    ]);
    const { min, max } = this.range();
    return {
      enabled: true,
      min_quota: min,
      max_quota: max,
      stats: {
        total_quota: totals.quota,
        total_checkins: totals.count,
        checkin_count: records.length,
        checked_in_today: (await this.store.rewardOn(userId, today)) !== undefined,
        records: records.map((r) => ({ checkin_date: r.day, quota_awarded: r.quota })),
      },
    };
  }

  /** Credits today's reward; refuses when check-in is off or the user already checked in today. */
  async checkIn(userId: number): Promise<{ quota: number; day: string }> {
    if (!this.options.bool('CheckInEnabled')) throw coded(ErrorCode.CheckInDisabled, MSG_DISABLED);
    const user = await this.users.get(userId);
    const { min, max } = this.range();
    const quota = drawReward(min, max);
    const amount = renderQuota(quota, {
      displayInCurrency: true,
      quotaPerUnit: this.options.num('QuotaPerUnit'),
      digits: 6,
    });
    const day = dayIn(this.timeZone);
    const recorded = await this.store.record({
      userId,
      username: user.username,
      day,
      quota,
      createdAt: nowSeconds(),
      content: `daily check-in: received ${quota} quota (${amount})`,
      event: { kind: 'checkin', quota, amount },
    });
    if (!recorded) throw coded(ErrorCode.CheckInAlreadyToday, 'you have already checked in today', undefined, 409);
    await this.users.notifyChanged(userId);
    return { quota, day };
  }
}

export const checkInOf = perContext(
  (ctx) => new CheckInService(new CheckInStore(ctx.db, ctx.accountLogs), ctx.users, ctx.options, ctx.config.timeZone),
);
