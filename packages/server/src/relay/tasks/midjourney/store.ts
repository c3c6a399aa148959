// The caller's own drawing tasks, read by their midjourney-proxy id.
import { keyIndexOfPrivateData } from '../store.js';
import type { Db } from '../../../db/connect.js';
import type { MjTaskRow } from './upstream-body.js';

/** Columns a drawing task is shown and acted on with. */
export type MjOwnRow = MjTaskRow & { id: number; user_id: number; channel_id: number; private_data: string };

const COLUMNS = [
  'id',
  'user_id',
  'channel_id',
  'mj_id',
  'action',
  'prompt',
  'prompt_en',
  'description',
  'state',
  'submit_time',
  'start_time',
  'finish_time',
  'image_url',
  'status',
  'progress',
  'fail_reason',
  'buttons',
  'properties',
  'video_url',
  'video_urls',
  'private_data',
] as const;

/** One of the caller's tasks (another user's id reads as missing). */
export async function ownMjTask(db: Db, userId: number, mjId: string): Promise<MjOwnRow | undefined> {
  return (await db.kysely
    .selectFrom('midjourneys')
    .select(COLUMNS)
    .where('user_id', '=', userId)
    .where('mj_id', '=', mjId)
    .executeTakeFirst()) as MjOwnRow | undefined;
}

/** The caller's tasks among these ids. */
export async function ownMjTasks(db: Db, userId: number, mjIds: string[]): Promise<MjOwnRow[]> {
  if (mjIds.length === 0) return [];
  return (await db.kysely
    .selectFrom('midjourneys')
    .select(COLUMNS)
    .where('user_id', '=', userId)
    .where('mj_id', 'in', mjIds)
    .execute()) as MjOwnRow[];
}

/** Any user's task by its id (the image proxy and the upstream's notify, which carry no caller). */
export async function mjTaskByMjId(db: Db, mjId: string): Promise<MjOwnRow | undefined> {
  return (await db.kysely
    .selectFrom('midjourneys')
    .select(COLUMNS)
    .where('mj_id', '=', mjId)
    .orderBy('id', 'desc')
    .executeTakeFirst()) as MjOwnRow | undefined;
}

/** The key index the task's submit used (kept in private_data), for calls that must use the same account. */
export const keyIndexOf = (row: MjOwnRow): number | undefined => keyIndexOfPrivateData(row.private_data);
