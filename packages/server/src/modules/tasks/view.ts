import type { MjRow, TaskRow } from '@tollway/shared';
import type { MjRecord, TaskRecord } from './store.js';

/** The columns both task kinds show the same way; the channel only to administrators. */
function common(r: MjRecord | TaskRecord, admin: boolean) {
  const row = {
    id: r.id,
    user_id: r.user_id,
    action: r.action,
    status: r.status,
    progress: r.progress,
    fail_reason: r.fail_reason ?? '',
    submit_time: Number(r.submit_time),
    start_time: Number(r.start_time),
    finish_time: Number(r.finish_time),
    quota: Number(r.quota),
  };
  return admin ? { ...row, channel_id: r.channel_id } : row;
}

/** A drawing task as the API shows it; the channel only to administrators. */
export function toMjRow(r: MjRecord, admin: boolean): MjRow {
  return {
    ...common(r, admin),
    code: r.code,
    mj_id: r.mj_id,
    prompt: r.prompt ?? '',
    prompt_en: r.prompt_en ?? '',
    description: r.description ?? '',
    image_url: r.image_url ?? '',
    video_url: r.video_url ?? '',
  };
}

/** A music or video task as the API shows it (its result file in result_url); the channel only to administrators. */
export function toTaskRow(r: TaskRecord, admin: boolean): TaskRow {
  return {
    ...common(r, admin),
    task_id: r.task_id,
    platform: r.platform,
    data: r.data ?? '',
    result_url: r.result_url ?? '',
  };
}
