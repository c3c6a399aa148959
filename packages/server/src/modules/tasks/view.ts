import type { MjRow, TaskRow } from '@tollway/shared';
import type { MjRecord, TaskRecord } from './store.js';

/** A drawing task as the API shows it; the channel only to administrators. */
export function toMjRow(r: MjRecord, admin: boolean): MjRow {
  const row: MjRow = {
    id: r.id,
    user_id: r.user_id,
    code: r.code,
    action: r.action,
    mj_id: r.mj_id,
    prompt: r.prompt ?? '',
    prompt_en: r.prompt_en ?? '',
    description: r.description ?? '',
    status: r.status,
    progress: r.progress,
    image_url: r.image_url ?? '',
    fail_reason: r.fail_reason ?? '',
    submit_time: Number(r.submit_time),
    start_time: Number(r.start_time),
    finish_time: Number(r.finish_time),
    quota: Number(r.quota),
  };
  if (admin) row.channel_id = r.channel_id;
  return row;
}

/** A music task as the API shows it; the channel only to administrators. */
export function toTaskRow(r: TaskRecord, admin: boolean): TaskRow {
  const row: TaskRow = {
    id: r.id,
    user_id: r.user_id,
    task_id: r.task_id,
    platform: r.platform,
    action: r.action,
    status: r.status,
    progress: r.progress,
    fail_reason: r.fail_reason ?? '',
    submit_time: Number(r.submit_time),
    start_time: Number(r.start_time),
    finish_time: Number(r.finish_time),
    quota: Number(r.quota),
    data: r.data ?? '',
  };
  if (admin) row.channel_id = r.channel_id;
  return row;
}
