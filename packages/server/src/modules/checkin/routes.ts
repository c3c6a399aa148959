import { checkinAward, checkinMonthQuery, checkinStats, checkInResult, checkInStatus } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { checkInOf } from './service.js';

/** Daily check-in (CheckInEnabled, CheckInQuota, CheckInMaxQuota). */
export function checkInRoutes(r: Router): void {
  const tags = ['check-in'];
  r.add({
    method: 'GET',
    url: '/api/user/check_in_status',
    level: 'user',
    summary: "Whether the caller can check in today (server's time zone), today's reward and the reward range",
    tags,
    response: checkInStatus,
    handler: ({ ctx, user }) => checkInOf(ctx).status(user!.id),
  });
  r.add({
    method: 'POST',
    url: '/api/user/check_in',
    level: 'user',
    summary:
      'Check in for today: credits CheckInQuota, or a random amount up to CheckInMaxQuota in steps of 100; once a day',
    tags,
    response: checkInResult,
    successMessage: 'check-in success',
    handler: async ({ ctx, user }) => ({ quota: (await checkInOf(ctx).checkIn(user!.id)).quota }),
  });
  // new-api's paths and shapes, answered by the same service.
  r.add({
    method: 'GET',
    url: '/api/user/checkin',
    level: 'user',
    summary:
      "new-api's check-in status: reward range, all-time totals and the check-ins of ?month=YYYY-MM (default this month)",
    tags,
    query: checkinMonthQuery,
    response: checkinStats,
    handler: ({ ctx, user, query }) => checkInOf(ctx).stats(user!.id, query.month),
  });
  r.add({
    method: 'POST',
    url: '/api/user/checkin',
    level: 'user',
    summary:
      "new-api's check-in: the same daily reward as POST /api/user/check_in, answered as quota_awarded and checkin_date",
    tags,
    response: checkinAward,
    successMessage: 'check-in success',
    handler: async ({ ctx, user }) => {
      const { quota, day } = await checkInOf(ctx).checkIn(user!.id);
      return { quota_awarded: quota, checkin_date: day };
    },
  });
}
