import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { parseJsonObject } from '../../core/routing/channel-row.js';
import type { Db } from '../../db/connect.js';
import { FINAL_TASK_STATUSES, TASK_FAIL_TEXT, TaskStatus, type TaskState, type TaskTable } from './types.js';

/** A task row of either table, as the engine reads it (billing, polling, refund). */
export interface TaskRow {
  table: TaskTable;
  id: number;
  /** The id callers see: `task_…` of our own for tasks rows, Midjourney's own id for midjourneys rows. */
  taskId: string;
  /** The upstream's id; '' while the submission is on its way. */
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
  /** Whether its charge has been applied (a charge still in the writer's queue reads false). */
  charged: boolean;
}

/** A row written before the submission goes upstream: the task's record whatever happens next. */
export interface PendingTask extends Omit<
  TaskRow,
  'table' | 'id' | 'taskId' | 'upstreamTaskId' | 'status' | 'progress' | 'charged'
> {
  properties: Record<string, unknown>;
  /** Midjourney only. */
  mj?: { prompt: string; mode: string };
}

/** What an accepted submission writes to its row. */
export interface AcceptedTask {
  upstreamTaskId: string;
  status: string;
  channelId: number;
  properties: Record<string, unknown>;
  privateData: Record<string, unknown>;
  /** Midjourney only. */
  mj?: { code: number; description: string };
}

const FINAL = [...FINAL_TASK_STATUSES];
const INITIAL_PROGRESS = '0%';
const DONE_PROGRESS = '100%';
/** Random bytes of a public task id (`task_` + base64url). */
const PUBLIC_ID_BYTES = 24;

/** The key index a task row's private data names (the key its submission used: the same upstream account). */
export function keyIndexOfPrivateData(privateData: string): number | undefined {
  const v = parseJsonObject<Record<string, unknown>>(privateData, {}).key_index;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/** A fresh public task id; callers never see the upstream's. */
export const newPublicTaskId = (): string => `task_${randomBytes(PUBLIC_ID_BYTES).toString('base64url')}`;

/** Inserts a task before its submission (NOT_START, no upstream id yet); returns its id and public id. */
export async function insertPendingTask(
  db: Db,
  table: TaskTable,
  r: PendingTask,
  now: number,
): Promise<{ id: number; taskId: string }> {
  const common = {
    user_id: r.userId,
    token_id: r.tokenId,
    group: r.group,
    channel_id: r.channelId,
    quota: r.quota,
    action: r.action,
    model_name: r.modelName,
    request_id: r.requestId,
    status: TaskStatus.NotStart,
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
    const mj = r.mj ?? { prompt: '', mode: '' };
    const values = {
      ...common,
      mj_id: '',
      code: 0,
      prompt: mj.prompt,
      prompt_en: '',
      description: '',
      mode: mj.mode,
      image_url: '',
      buttons: '[]',
      video_url: '',
      video_urls: '[]',
      state: '',
    };
    if (db.dialect === 'mysql')
      return {
        id: Number((await k.insertInto('midjourneys').values(values).executeTakeFirstOrThrow()).insertId),
        taskId: '',
      };
    return {
      id: (await k.insertInto('midjourneys').values(values).returning('id').executeTakeFirstOrThrow()).id,
      taskId: '',
    };
  }
  const taskId = newPublicTaskId();
  const values = { ...common, task_id: taskId, upstream_task_id: '', platform: r.platform, data: '', result_url: '' };
  if (db.dialect === 'mysql')
    return { id: Number((await k.insertInto('tasks').values(values).executeTakeFirstOrThrow()).insertId), taskId };
  return { id: (await k.insertInto('tasks').values(values).returning('id').executeTakeFirstOrThrow()).id, taskId };
}

/** An accepted submission's upstream id and state; false when the row is gone or no longer waiting for it. */
export async function acceptTask(db: Db, table: TaskTable, id: number, a: AcceptedTask, now: number): Promise<boolean> {
  const common = {
    status: a.status,
    channel_id: a.channelId,
    properties: JSON.stringify(a.properties),
    private_data: JSON.stringify(a.privateData),
    updated_at: now,
  };
  const k = db.kysely;
  const r =
    table === 'midjourneys'
      ? await k
          .updateTable('midjourneys')
          .set({ ...common, mj_id: a.upstreamTaskId, code: a.mj?.code ?? 1, description: a.mj?.description ?? '' })
          .where('id', '=', id)
          .where('mj_id', '=', '')
          .where('status', '=', TaskStatus.NotStart)
          .executeTakeFirst()
      : await k
          .updateTable('tasks')
          .set({ ...common, upstream_task_id: a.upstreamTaskId })
          .where('id', '=', id)
          .where('upstream_task_id', '=', '')
          .where('status', '=', TaskStatus.NotStart)
          .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Removes a row whose submission every upstream refused (nothing was charged). */
export async function deletePendingTask(db: Db, table: TaskTable, id: number): Promise<void> {
  if (table === 'midjourneys')
    await db.kysely.deleteFrom('midjourneys').where('id', '=', id).where('mj_id', '=', '').execute();
  else await db.kysely.deleteFrom('tasks').where('id', '=', id).where('upstream_task_id', '=', '').execute();
}

const COMMON = [
  'id',
  'user_id',
  'token_id',
  'group',
  'channel_id',
  'quota',
  'action',
  'model_name',
  'request_id',
  'status',
  'progress',
  'submit_time',
  'private_data',
  'charge_batch',
] as const;

type CommonRow = { [K in (typeof COMMON)[number]]: unknown } & {
  upstream: unknown;
  public: unknown;
  platform?: unknown;
};

/** The column holding the upstream's id. */
const upstreamColumn = (table: TaskTable) => (table === 'midjourneys' ? 'mj_id' : 'upstream_task_id');

function toRow(table: TaskTable, r: CommonRow): TaskRow {
  return {
    table,
    id: Number(r.id),
    taskId: String(r.public),
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
    charged: r.charge_batch !== '',
  };
}

/** The engine's columns of a table (one query shape for both; the where clauses are the caller's). */
function rowsOf(db: Db, table: TaskTable) {
  const k = db.kysely;
  // Both tables share these columns; the cast keeps one builder for the two.
  return table === 'midjourneys'
    ? (k.selectFrom('midjourneys').select([...COMMON, 'mj_id as upstream', 'mj_id as public']) as unknown as ReturnType<
        typeof tasksRows
      >)
    : tasksRows(db);
}

const tasksRows = (db: Db) =>
  db.kysely.selectFrom('tasks').select([...COMMON, 'upstream_task_id as upstream', 'task_id as public', 'platform']);

async function readRows(table: TaskTable, q: ReturnType<typeof tasksRows>): Promise<TaskRow[]> {
  return (await q.execute()).map((r) => toRow(table, r as CommonRow));
}

/** Unfinished rows of a table that reached their upstream, oldest first; with `submittedBefore`, only those submitted before it. */
export async function unfinishedTasks(
  db: Db,
  table: TaskTable,
  limit: number,
  submittedBefore?: number,
): Promise<TaskRow[]> {
  const q = rowsOf(db, table)
    .where('status', 'not in', FINAL)
    .where(upstreamColumn(table) as 'upstream_task_id', '<>', '')
    .$if(submittedBefore !== undefined, (w) => w.where('submit_time', '<', submittedBefore!))
    .orderBy('id')
    .limit(limit);
  return readRows(table, q);
}

/** Rows whose submission never got an upstream id, submitted before `before` (a crash cut them). */
export async function staleSubmissions(db: Db, table: TaskTable, before: number, limit: number): Promise<TaskRow[]> {
  const q = rowsOf(db, table)
    .where('status', '=', TaskStatus.NotStart)
    .where(upstreamColumn(table) as 'upstream_task_id', '=', '')
    .where('submit_time', '<', before)
    .orderBy('id')
    .limit(limit);
  return readRows(table, q);
}

/** Failed, charged rows whose refund has not been applied, last changed before `before`. */
export async function unrefundedFailures(db: Db, table: TaskTable, before: number, limit: number): Promise<TaskRow[]> {
  const q = rowsOf(db, table)
    .where('status', '=', TaskStatus.Failure)
    .where('refund_batch', '=', '')
    .where('charge_batch', '<>', '')
    .where('quota', '>', 0)
    .where('updated_at', '<', before)
    .orderBy('id')
    .limit(limit);
  return readRows(table, q);
}

/** One row by id. */
export async function taskById(db: Db, table: TaskTable, id: number): Promise<TaskRow | undefined> {
  return (await readRows(table, rowsOf(db, table).where('id', '=', id)))[0];
}

const json = (v: unknown): string => JSON.stringify(v);

/** The statuses that show a task has started: its start_time is set when first seen, unless the upstream names it. */
const STARTED_STATUSES: ReadonlySet<string> = new Set([TaskStatus.InProgress, TaskStatus.Success]);

/** The columns a state sets (only what it carries). */
function stateColumns(table: TaskTable, s: TaskState, now: number): Record<string, unknown> {
  const set: Record<string, unknown> = { status: s.status, updated_at: now };
  const final = FINAL_TASK_STATUSES.has(s.status);
  if (s.progress !== undefined) set.progress = s.progress;
  else if (final) set.progress = DONE_PROGRESS;
  if (s.failReason !== undefined) set.fail_reason = s.failReason.slice(0, 1000);
  if (s.startTime) set.start_time = s.startTime;
  // An upstream that reports no start (OpenAI's videos and the other video vendors): the first poll that finds the
  // task running (or already done) is its start, as new-api keeps it; a start already recorded stays.
  else if (STARTED_STATUSES.has(s.status))
    set.start_time = sql<number>`case when start_time = 0 then ${now} else start_time end`;
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
export async function updateUnfinished(
  db: Db,
  table: TaskTable,
  id: number,
  s: TaskState,
  now: number,
): Promise<boolean> {
  const set = stateColumns(table, s, now);
  const r = await db.kysely
    .updateTable(table)
    .set(set as never)
    .where('id', '=', id)
    .where('status', 'not in', FINAL)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export const timedOutState = (upstreamTaskId: string): TaskState => ({
  upstreamTaskId,
  status: TaskStatus.Failure,
  failReason: TASK_FAIL_TEXT.timeout,
});

/** A row by its upstream task id (a notify names the task so); tasks rows also by platform. */
export async function taskByUpstreamId(
  db: Db,
  table: TaskTable,
  upstreamTaskId: string,
  platform?: string,
): Promise<TaskRow | undefined> {
  const q = rowsOf(db, table)
    .where(upstreamColumn(table) as 'upstream_task_id', '=', upstreamTaskId)
    .$if(platform !== undefined && table === 'tasks', (w) => w.where('platform', '=', platform!))
    .orderBy('id', 'desc')
    .limit(1);
  return (await readRows(table, q))[0];
}
