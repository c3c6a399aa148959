import { QUOTA_MAX, REQUESTS_PER_DAY_MAX } from '@tollway/shared';
import { z } from 'zod';

/** Form fields of the period limits; `message` is the (translated or key) text of a bad value. */
export const periodLimitFormFields = (message: string) => {
  const whole = (max: number) => z.number(message).int(message).min(0, message).max(max, message);
  return {
    quota_per_day: whole(QUOTA_MAX),
    quota_per_week: whole(QUOTA_MAX),
    quota_per_month: whole(QUOTA_MAX),
    quota_per_5h: whole(QUOTA_MAX),
    requests_per_day: whole(REQUESTS_PER_DAY_MAX),
  };
};
