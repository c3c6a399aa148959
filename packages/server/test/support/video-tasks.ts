import type { TestApp } from './app.js';
import { drainWriter } from './gateway.js';

/** An OpenAI video object as the video routes answer it (the fields the tests read). */
export type Video = {
  id: string;
  object: string;
  status: string;
  progress: number;
  model: string;
  metadata?: { url: string };
  error?: { message: string };
};

/** Poller passes a test waits for a video to end. */
const MAX_PASSES = 10;

/** Reads a video (`get`), running the task poller between reads, until it is completed or failed. */
export async function pollVideoUntilFinal(t: TestApp, get: () => Promise<Video>): Promise<Video> {
  let v = await get();
  for (let i = 0; i < MAX_PASSES && v.status !== 'completed' && v.status !== 'failed'; i++) {
    await t.runtime.taskPoller.job.runOnce();
    v = await get();
  }
  return v;
}

/** The refund logs of a user's task (system logs with `task_refund`), after the writer has committed. */
export async function taskRefundLogs(t: TestApp, userId: number, taskId: string) {
  await drainWriter(t);
  const rows = await t.database.db.kysely
    .selectFrom('logs')
    .select(['other', 'quota'])
    .where('user_id', '=', userId)
    .execute();
  return rows.filter((r) => String(r.other).includes(taskId) && JSON.parse(String(r.other)).task_refund !== undefined);
}
