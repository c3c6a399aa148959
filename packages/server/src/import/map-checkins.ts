import type { TableSpec } from './copy.js';
import { userRef, type MapContext } from './context.js';
import { num, text } from './values.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * new-api's daily check-ins (checkins: user_id, checkin_date YYYY-MM-DD, quota_awarded, created_at) as Tollway's
 * (user_id, day, quota, created_at): the day a user checked in stays taken, and the history keeps its awards. The
 * award is already in the user's quota: nothing is credited again.
 */
export function checkinsSpec(ctx: MapContext): TableSpec {
  return {
    source: 'checkins',
    target: 'checkins',
    requires: { column: 'user_id', table: 'users', what: 'user' },
    map(r) {
      const day = text(r.checkin_date).trim();
      if (!DAY.test(day)) return 'checkin_date is not a day YYYY-MM-DD';
      return {
        id: num(r.id) + ctx.off.checkins,
        user_id: userRef(ctx, r.user_id),
        day,
        quota: Math.max(0, Math.trunc(num(r.quota_awarded))),
        created_at: num(r.created_at),
      };
    },
  };
}
