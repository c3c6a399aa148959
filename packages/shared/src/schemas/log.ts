import { z } from 'zod';
import { pageQuery } from './common.js';

/** Latest accepted timestamp in filters (9999-12-31 23:59:59 UTC). */
const MAX_EPOCH = 253402300799;

/** An epoch-seconds filter bound from a query string (0 = none). */
export const epochSecondsFilter = (field: string) =>
  z.coerce
    .number({ error: `${field} must be epoch seconds` })
    .int(`${field} must be an integer`)
    .min(0, `${field} must be at least 0`)
    .max(MAX_EPOCH, `${field} is too large`)
    .default(0);

const text = (max: number) => z.string().trim().max(max).optional().default('');

/** Filters of the administrators' log list and stat (0 / '' means no filter; times are created_at bounds, inclusive). */
const logFilterFields = {
  type: z.coerce
    .number({ error: 'type must be a number' })
    .int('type must be an integer')
    .min(0)
    .max(6, 'type must be between 0 and 6')
    .default(0),
  username: text(64),
  token_name: text(64),
  model_name: text(191),
  start_timestamp: epochSecondsFilter('start_timestamp'),
  end_timestamp: epochSecondsFilter('end_timestamp'),
  channel: z.coerce
    .number({ error: 'channel must be a channel id' })
    .int('channel must be an integer')
    .min(0)
    .max(2_147_483_647)
    .default(0),
  group: text(64),
};

/** GET /api/log/ (all users). */
export const logQuery = pageQuery.extend(logFilterFields);
/** GET /api/log/self/ (own logs; no username or channel filter). */
export const selfLogQuery = logQuery.omit({ username: true, channel: true });
/** GET /api/log/stat. */
export const logStatQuery = z.object(logFilterFields);
/** GET /api/log/self/stat. */
export const selfLogStatQuery = logStatQuery.omit({ username: true, channel: true });
export type LogFilter = Partial<z.infer<typeof logStatQuery>>;

/** DELETE /api/log/?target_timestamp=: deletes logs created before it. */
export const deleteLogsQuery = z.object({
  target_timestamp: z.coerce
    .number({ error: 'target_timestamp must be epoch seconds' })
    .int('target_timestamp must be an integer')
    .min(1, 'target_timestamp must be a positive number of epoch seconds')
    .max(MAX_EPOCH, 'target_timestamp is too large'),
});

/**
 * A usage log row. `other` is the JSON text as stored. Administrators' rows carry channel (id),
 * channel_name and ip; a user's own rows omit channel and channel_name (and admin-only keys inside `other`),
 * and carry ip only when the user's setting show_ip_in_logs is on.
 */
export const logRow = z.object({
  id: z.number().int(),
  created_at: z.number().int(),
  type: z.number().int(),
  user_id: z.number().int(),
  username: z.string(),
  token_id: z.number().int(),
  token_name: z.string(),
  model_name: z.string(),
  group: z.string(),
  channel: z.number().int().optional(),
  channel_name: z.string().optional(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  quota: z.number().int(),
  use_time: z.number().int(),
  is_stream: z.boolean(),
  content: z.string(),
  ip: z.string().optional(),
  request_id: z.string(),
  other: z.string(),
  /** Administrators' rows of a reseller organization's calls: the member's price of the call (quota: the system's). */
  billed_quota: z.number().int().optional(),
});
export type LogRow = z.infer<typeof logRow>;

/** quota: sum over consumption logs matching the filters; rpm/tpm: requests and tokens in the last 60 seconds. */
export const logStat = z.object({ quota: z.number().int(), rpm: z.number().int(), tpm: z.number().int() });
export type LogStat = z.infer<typeof logStat>;
