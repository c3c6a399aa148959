import { z } from 'zod';
import { pageQuery } from './common.js';
import { epochSecondsFilter } from './log.js';

const channelId = z.coerce
  .number({ error: 'channel_id must be a channel id' })
  .int('channel_id must be an integer')
  .min(0)
  .max(2_147_483_647)
  .default(0);
const userId = z.coerce
  .number({ error: 'user_id must be a user id' })
  .int('user_id must be an integer')
  .min(0)
  .max(2_147_483_647)
  .default(0);
const taskKey = (field: string) =>
  z.string().trim().max(191, `${field} must be at most 191 characters`).optional().default('');

/** Time bounds on submit_time, inclusive; 0 means open. */
const range = {
  start_timestamp: epochSecondsFilter('start_timestamp'),
  end_timestamp: epochSecondsFilter('end_timestamp'),
};

/** Bounds above this are epoch milliseconds (new-api's console sends them to /api/mj). */
const MILLISECONDS_FROM = 1e12;
const MS_PER_SECOND = 1000;
const secondsOrMilliseconds = (field: string) =>
  z.preprocess((v) => {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    return typeof n === 'number' && Number.isFinite(n) && n > MILLISECONDS_FROM ? Math.floor(n / MS_PER_SECOND) : v;
  }, epochSecondsFilter(field));
/** Drawing-list bounds: epoch seconds, or epoch milliseconds read as seconds. */
const mjRange = {
  start_timestamp: secondsOrMilliseconds('start_timestamp'),
  end_timestamp: secondsOrMilliseconds('end_timestamp'),
};

/** GET /api/mj/ (administrators): channel, task id, user and submit-time range. */
export const mjQuery = pageQuery.extend({
  ...mjRange,
  channel_id: channelId,
  mj_id: taskKey('mj_id'),
  user_id: userId,
});
/** GET /api/mj/self/: own tasks; no channel or user filter (regular users cannot specify channels). */
export const selfMjQuery = mjQuery.omit({ channel_id: true, user_id: true });
/** GET /api/task/ (administrators). */
export const taskQuery = pageQuery.extend({
  ...range,
  channel_id: channelId,
  task_id: taskKey('task_id'),
  user_id: userId,
});
/** GET /api/task/self. */
export const selfTaskQuery = taskQuery.omit({ channel_id: true, user_id: true });

/** A drawing task; channel_id only in administrators' lists. */
export const mjRow = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  code: z.number().int(),
  action: z.string(),
  mj_id: z.string(),
  prompt: z.string(),
  prompt_en: z.string(),
  description: z.string(),
  status: z.string(),
  progress: z.string(),
  image_url: z.string(),
  /** The video of a video task (Midjourney's video actions); absent before the task relay stored one. */
  video_url: z.string().optional(),
  fail_reason: z.string(),
  submit_time: z.number().int(),
  start_time: z.number().int(),
  finish_time: z.number().int(),
  quota: z.number().int(),
  channel_id: z.number().int().optional(),
});
export type MjRow = z.infer<typeof mjRow>;

/** A music (asynchronous) task; channel_id only in administrators' lists. */
export const taskRow = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  task_id: z.string(),
  platform: z.string(),
  action: z.string(),
  status: z.string(),
  progress: z.string(),
  fail_reason: z.string(),
  submit_time: z.number().int(),
  start_time: z.number().int(),
  finish_time: z.number().int(),
  quota: z.number().int(),
  data: z.string(),
  /** The result file (a video platform's video); absent before the task relay stored one. */
  result_url: z.string().optional(),
  channel_id: z.number().int().optional(),
});
export type TaskRow = z.infer<typeof taskRow>;
