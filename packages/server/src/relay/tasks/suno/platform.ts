import { ChannelType } from '@tollway/shared';
import type { TaskPlatform, TaskState, TaskSubmitRequest, TaskSubmitResult, TaskUpstream } from '../types.js';
import { TASK_FETCH_TIMEOUT_MS, TASK_SUBMIT_TIMEOUT_MS, taskRequest, type TaskHttpAnswer } from '../upstream-http.js';
import {
  parseSunoFetchAnswer,
  parseSunoSubmitAnswer,
  SUNO_PLATFORM,
  sunoActionOf,
  SunoError,
  sunoFetchUrl,
  sunoSubmitUrl,
} from './wire.js';

/** Ids per upstream fetch (one `POST /suno/fetch`). */
const SUNO_FETCH_BATCH = 50;
/** Upstream status for a call that never got an answer. */
const BAD_GATEWAY = 502;

const headers = (key: string) => ({ authorization: `Bearer ${key}` });

async function submit(req: TaskSubmitRequest): Promise<TaskSubmitResult> {
  const action = sunoActionOf(req.action);
  if (!action) return { ok: false, httpStatus: 400, code: 'invalid_action', message: `invalid action ${req.action}` };
  let res: TaskHttpAnswer;
  try {
    res = await taskRequest(sunoSubmitUrl(req.baseUrl, action), {
      headers: headers(req.key),
      json: req.body,
      timeoutMs: TASK_SUBMIT_TIMEOUT_MS,
      signal: req.signal,
    });
  } catch (err) {
    return {
      ok: false,
      httpStatus: BAD_GATEWAY,
      code: 'do_request_failed',
      message: `the upstream could not be reached: ${(err as Error).message}`,
    };
  }
  try {
    return { ok: true, upstreamTaskId: parseSunoSubmitAnswer(res.status, res.text) };
  } catch (err) {
    const e = err as SunoError;
    return { ok: false, httpStatus: e.status, code: e.code, message: e.message };
  }
}

async function fetchTasks(upstream: TaskUpstream, ids: readonly string[]): Promise<TaskState[]> {
  const res = await taskRequest(sunoFetchUrl(upstream.baseUrl), {
    headers: headers(upstream.key),
    json: { ids, action: '' },
    timeoutMs: TASK_FETCH_TIMEOUT_MS,
    signal: upstream.signal,
  });
  if (res.status < 200 || res.status >= 300) throw new Error(`suno fetch answered ${res.status}`);
  return parseSunoFetchAnswer(res.text).map((t) => ({
    upstreamTaskId: t.taskId,
    status: t.status,
    progress: t.progress || undefined,
    failReason: t.failReason || undefined,
    startTime: t.startTime || undefined,
    finishTime: t.finishTime || undefined,
    urls: audioUrls(t.data),
    data: t.data ? (JSON.parse(t.data) as unknown) : undefined,
  }));
}

/** The audio URLs of a music task's clips, when it has them. */
function audioUrls(data: string): string[] | undefined {
  if (!data) return undefined;
  const clips = JSON.parse(data) as unknown;
  if (!Array.isArray(clips)) return undefined;
  const urls = clips
    .map((c) => (c && typeof c === 'object' ? (c as { audio_url?: unknown }).audio_url : undefined))
    .filter((u): u is string => typeof u === 'string' && !!u);
  return urls.length ? urls : undefined;
}

/** Suno through a Suno API deployment (channel type SunoAPI), as new-api relays it. */
export const sunoPlatform: TaskPlatform = {
  name: SUNO_PLATFORM,
  table: 'tasks',
  channelTypes: [ChannelType.SunoAPI],
  batchSize: SUNO_FETCH_BATCH,
  submit,
  fetchTasks,
};
