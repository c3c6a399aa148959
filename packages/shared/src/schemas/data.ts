import { z } from 'zod';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';

/** Granularities of the data dashboard; also the values of DataExportDefaultTime. */
export const DATA_GRANULARITIES = ['hour', 'day', 'week'] as const;
export type DataGranularity = (typeof DATA_GRANULARITIES)[number];

/** Seconds looked back when no start is given, per DataExportDefaultTime: a day of hours, a week of days, 30 days of weeks. */
export const DATA_DEFAULT_SPAN: Record<DataGranularity, number> = { hour: 86_400, day: 7 * 86_400, week: 30 * 86_400 };

const bound = (field: string) =>
  z.coerce
    .number({ error: `${field} must be epoch seconds` })
    .int(`${field} must be an integer`)
    .min(0, `${field} must be at least 0`)
    .max(253402300799, `${field} is too large`)
    .default(0);

const range = { start_timestamp: bound('start_timestamp'), end_timestamp: bound('end_timestamp') };
const ordered = (q: { start_timestamp: number; end_timestamp: number }) =>
  !q.start_timestamp || !q.end_timestamp || q.start_timestamp <= q.end_timestamp;
const orderMessage = inputRule(ErrorCode.DateRangeReversed, 'must not be after end_timestamp', undefined, [
  'start_timestamp',
]);

/** GET /api/data/self: hours whose start lies in [start_timestamp, end_timestamp]; 0 means the default range. */
export const selfDataQuery = z.object(range).refine(ordered, orderMessage);

/** GET /api/data/: the same, for every user or the one named by username. */
export const dataQuery = z
  .object({
    username: z.string().trim().max(64, 'username must be at most 64 characters').optional().default(''),
    ...range,
  })
  .refine(ordered, orderMessage);

/** One hour of one model's usage (summed over the selected users); created_at is the hour's first second. */
export const dataRow = z.object({
  model_name: z.string(),
  created_at: z.number().int(),
  count: z.number().int(),
  token_used: z.number().int(),
  quota: z.number().int(),
});
export type DataRow = z.infer<typeof dataRow>;

/** GET /api/data/users: one hour of one user's usage (summed over models); created_at is the hour's first second. */
export const userDataRow = z.object({
  username: z.string(),
  created_at: z.number().int(),
  count: z.number().int(),
  token_used: z.number().int(),
  quota: z.number().int(),
});
export type UserDataRow = z.infer<typeof userDataRow>;
