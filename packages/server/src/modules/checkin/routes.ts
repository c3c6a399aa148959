import { checkInResult, checkInStatus } from '@tollway/shared';
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
    summary: 'Check in for today: credits CheckInQuota, or a random amount up to CheckInMaxQuota in steps of 100; once a day',
    tags,
    response: checkInResult,
    successMessage: 'check-in success',
    handler: ({ ctx, user }) => checkInOf(ctx).checkIn(user!.id),
  });
}
