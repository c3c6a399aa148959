import type { Db } from '../../../db/connect.js';

/** Ids asked for in one caller's fetch. */
const MAX_IDS = 100;

/** A caller's own task row (tasks table) as the fetch routes show it. */
export interface OwnTaskRow {
  /** The public id (`task_…`); callers never see the upstream's. */
  task_id: string;
  /** The upstream's id: for calls to the upstream only. */
  upstream_task_id: string;
  platform: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: string;
  model_name: string;
  result_url: string;
  properties: string;
  channel_id: number;
  private_data: string;
}

const COLUMNS = [
  'task_id',
  'upstream_task_id',
  'platform',
  'action',
  'status',
  'fail_reason',
  'submit_time',
  'start_time',
  'finish_time',
  'progress',
  'data',
  'model_name',
  'result_url',
  'properties',
  'channel_id',
  'private_data',
] as const;

const normal = (r: Record<string, unknown>): OwnTaskRow =>
  ({
    ...r,
    submit_time: Number(r.submit_time),
    start_time: Number(r.start_time),
    finish_time: Number(r.finish_time),
    channel_id: Number(r.channel_id),
    data: String(r.data ?? ''),
    properties: String(r.properties ?? ''),
    private_data: String(r.private_data ?? ''),
    result_url: String(r.result_url ?? ''),
  }) as OwnTaskRow;

/** The caller's tasks of these platforms with these public ids: another user's task is never found. */
export async function ownTaskRows(
  db: Db,
  userId: number,
  platforms: readonly string[],
  ids: readonly string[],
): Promise<OwnTaskRow[]> {
  if (!ids.length) return [];
  const rows = await db.kysely
    .selectFrom('tasks')
    .select([...COLUMNS])
    .where('user_id', '=', userId)
    .where('platform', 'in', [...platforms])
    .where('task_id', 'in', ids.slice(0, MAX_IDS))
    .orderBy('id')
    .execute();
  return rows.map((r) => normal(r as Record<string, unknown>));
}

export async function ownTaskRow(
  db: Db,
  userId: number,
  platforms: readonly string[],
  id: string,
): Promise<OwnTaskRow | undefined> {
  return (await ownTaskRows(db, userId, platforms, [id]))[0];
}

/** Any user's task of these platforms by its public id (administrators in the console). */
export async function anyTaskRow(db: Db, platforms: readonly string[], id: string): Promise<OwnTaskRow | undefined> {
  const r = await db.kysely
    .selectFrom('tasks')
    .select([...COLUMNS])
    .where('platform', 'in', [...platforms])
    .where('task_id', '=', id)
    .executeTakeFirst();
  return r && normal(r as Record<string, unknown>);
}
