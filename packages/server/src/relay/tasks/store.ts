import { parseJsonObject } from '../../core/routing/channel-row.js';
import type { Db } from '../../db/connect.js';
import { FINAL_TASK_STATUSES, TaskStatus, type TaskState, type TaskTable } from './types.js';

/** A task row of either table, as the engine reads it (billing, polling, refund). */
export interface TaskRow {
  table: TaskTable;
  id: number;
  upstreamTaskId: string;
  /** The platform (tasks.platform; '' for midjourneys rows, whose platform follows the channel type). */
  platform: string;
  userId: number;
  tokenId: number;
  group: string;
  channelId: number;
  quota: number;
  action: string;
  modelName: string;
  requestId: string;
  status: string;
  progress: string;
  submitTime: number;
  privateData: Record<string, unknown>;
}

/** What a new row holds; the rest of its columns take their defaults. */
export interface NewTaskRow extends Omit<TaskRow, 'table' | 'id' | 'progress'> {
  properties: Record<string, unknown>;
  /** Midjourney only. */
  mj?: { code: number; prompt: string; description: string; mode: string };
}

const FINAL = [...FINAL_TASK_STATUSES];
const INITIAL_PROGRESS = '0%';
const DONE_PROGRESS = '100%';

/** Inserts a task row; returns its id. */
export async function insertTaskRow(db: Db, table: TaskTable, r: NewTaskRow, now: number): Promise<number> {
  const common = {
    user_id: r.userId,
    token_id: r.tokenId,
    group: r.group,
    channel_id: r.channelId,
    quota: r.quota,
    action: r.action,
    model_name: r.modelName,
    request_id: r.requestId,
    status: r.status,
    progress: INITIAL_PROGRESS,
    fail_reason: '',
    submit_time: r.submitTime,
    start_time: 0,
    finish_time: 0,
    properties: JSON.stringify(r.properties),
    private_data: JSON.stringify(r.privateData),
    updated_at: now,
  };
  const k = db.kysely;
  if (table === 'midjourneys') {
    const mj = r.mj ?? { code: 1, prompt: '', description: '', mode: '' };
    const values = {
      ...common,
      mj_id: r.upstreamTaskId,
      code: mj.code,
      prompt: mj.prompt,
      prompt_en: '',
      description: mj.description,
      mode: mj.mode,
      image_url: '',
      buttons: '[]',
      video_url: '',
      video_urls: '[]',
      state: '',
    };
    if (db.dialect === 'mysql') return Number((await k.insertInto('midjourneys').values(values).executeTakeFirstOrThrow()).insertId);
    return (await k.insertInto('midjourneys').values(values).returning('id').executeTakeFirstOrThrow()).id;
  }
  const values = { ...common, task_id: r.upstreamTaskId, platform: r.platform, data: '', result_url: '' };
  if (db.dialect === 'mysql') return Number((await k.insertInto('tasks').values(values).executeTakeFirstOrThrow()).insertId);
  return (await k.insertInto('tasks').values(values).returning('id').executeTakeFirstOrThrow()).id;
}

const COMMON = ['id', 'user_id', 'token_id', 'group', 'channel_id', 'quota', 'action', 'model_name', 'request_id', 'status', 'progress', 'submit_time', 'private_data'] as const;

type CommonRow = { [K in (typeof COMMON)[number]]: unknown } & { upstream: unknown; platform: unknown };

function toRow(table: TaskTable, r: CommonRow): TaskRow {
  return {
    table,
    id: Number(r.id),
    upstreamTaskId: String(r.upstream),
    platform: String(r.platform ?? ''),
    userId: Number(r.user_id),
    tokenId: Number(r.token_id),
    group: String(r.group),
    channelId: Number(r.channel_id),
    quota: Number(r.quota),
    action: String(r.action),
    modelName: String(r.model_name),
    requestId: String(r.request_id),
    status: String(r.status),
    progress: String(r.progress),
    submitTime: Number(r.submit_time),
    privateData: parseJsonObject<Record<string, unknown>>(r.private_data as string, {}),
  };
}

/** Unfinished rows of a table, oldest first; with `submittedBefore`, only those submitted before it. */
export async function unfinishedTasks(db: Db, table: TaskTable, limit: number, submittedBefore?: number): Promise<TaskRow[]> {
  const k = db.kysely;
  const rows =
    table === 'midjourneys'
      ? await k
          .selectFrom('midjourneys')
          .select([...COMMON, 'mj_id as upstream'])
          .where('status', 'not in', FINAL)
          .$if(submittedBefore !== undefined, (q) => q.where('submit_time', '<', submittedBefore!))
          .orderBy('id')
          .limit(limit)
          .execute()
      : await k
          .selectFrom('tasks')
          .select([...COMMON, 'task_id as upstream', 'platform'])
          .where('status', 'not in', FINAL)
          .$if(submittedBefore !== undefined, (q) => q.where('submit_time', '<', submittedBefore!))
          .orderBy('id')
          .limit(limit)
          .execute();
  return rows.map((r) => toRow(table, { platform: '', ...r } as CommonRow));
}

/** One row by id. */
export async function taskById(db: Db, table: TaskTable, id: number): Promise<TaskRow | undefined> {
  const k = db.kysely;
  const r =
    table === 'midjourneys'
      ? await k
          .selectFrom('midjourneys')
          .select([...COMMON, 'mj_id as upstream'])
          .where('id', '=', id)
          .executeTakeFirst()
      : await k
          .selectFrom('tasks')
          .select([...COMMON, 'task_id as upstream', 'platform'])
          .where('id', '=', id)
          .executeTakeFirst();
  return r && toRow(table, { platform: '', ...r } as CommonRow);
}

const json = (v: unknown): string => JSON.stringify(v);

/** The columns a state sets (only what it carries). */
function stateColumns(table: TaskTable, s: TaskState, now: number): Record<string, string | number> {
  const set: Record<string, string | number> = { status: s.status, updated_at: now };
  const final = FINAL_TASK_STATUSES.has(s.status);
  if (s.progress !== undefined) set.progress = s.progress;
  else if (final) set.progress = DONE_PROGRESS;
  if (s.failReason !== undefined) set.fail_reason = s.failReason.slice(0, 1000);
  if (s.startTime) set.start_time = s.startTime;
  if (s.finishTime) set.finish_time = s.finishTime;
  else if (final) set.finish_time = now;
  if (s.properties) set.properties = json(s.properties);
  if (table === 'midjourneys') {
    if (s.imageUrl !== undefined) set.image_url = s.imageUrl;
    if (s.promptEn !== undefined) set.prompt_en = s.promptEn;
    if (s.description !== undefined) set.description = s.description;
    if (s.buttons) set.buttons = json(s.buttons);
    if (s.urls?.length) {
      set.video_url = s.urls[0]!;
      set.video_urls = json(s.urls);
    }
  } else {
    if (s.data !== undefined) set.data = json(s.data);
    if (s.urls?.length) set.result_url = s.urls[0]!;
  }
  return set;
}

/**
 * Writes a state to an unfinished row; false when the row was already final (or gone). The condition on the
 * status is what lets exactly one of several concurrent updaters move a task to a final status.
 */
export async function updateUnfinished(db: Db, table: TaskTable, id: number, s: TaskState, now: number): Promise<boolean> {
  const set = stateColumns(table, s, now);
  const r = await db.kysely
    .updateTable(table)
    .set(set as never)
    .where('id', '=', id)
    .where('status', 'not in', FINAL)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export const timedOutState = (upstreamTaskId: string): TaskState => ({ upstreamTaskId, status: TaskStatus.Failure, failReason: 'task timed out' });

/** A row by its upstream task id (a notify names the task so); tasks rows also by platform. */
export async function taskByUpstreamId(db: Db, table: TaskTable, upstreamTaskId: string, platform?: string): Promise<TaskRow | undefined> {
  const k = db.kysely;
  const r =
    table === 'midjourneys'
      ? await k
          .selectFrom('midjourneys')
          .select([...COMMON, 'mj_id as upstream'])
          .where('mj_id', '=', upstreamTaskId)
          .orderBy('id', 'desc')
          .executeTakeFirst()
      : await k
          .selectFrom('tasks')
          .select([...COMMON, 'task_id as upstream', 'platform'])
          .where('task_id', '=', upstreamTaskId)
          .$if(platform !== undefined, (q) => q.where('platform', '=', platform!))
          .orderBy('id', 'desc')
          .executeTakeFirst();
  return r && toRow(table, { platform: '', ...r } as CommonRow);
}
