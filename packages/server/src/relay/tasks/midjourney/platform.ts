// The Midjourney task platform: midjourney-proxy (and Plus) upstreams, called with the channel's mj-api-secret.
import { ChannelType } from '@tollway/shared';
import type {
  TaskPlatform,
  TaskRefused,
  TaskState,
  TaskStatus,
  TaskSubmitRequest,
  TaskSubmitResult,
  TaskUpstream,
} from '../types.js';
import { TASK_FETCH_TIMEOUT_MS, TASK_SUBMIT_TIMEOUT_MS, taskRequest } from '../upstream-http.js';
import { MjAction, MjCode, MjStatus, type MjSubmitAnswer, type MjTaskView } from './wire.js';

/** Task ids asked for in one list-by-condition call. */
const FETCH_BATCH = 50;
const BAD_GATEWAY = 502;
const MS_PER_SECOND = 1000;

/** The upstream route of an action (the change actions by the fields their body carries). */
export function upstreamSubmitPath(action: string, body: Record<string, unknown>): string {
  switch (action) {
    case MjAction.Imagine:
      return '/mj/submit/imagine';
    case MjAction.Describe:
      return '/mj/submit/describe';
    case MjAction.Blend:
      return '/mj/submit/blend';
    case MjAction.Shorten:
      return '/mj/submit/shorten';
    case MjAction.Upload:
      return '/mj/submit/upload-discord-images';
    case MjAction.SwapFace:
      return '/mj/insight-face/swap';
    case MjAction.Modal:
      return '/mj/submit/modal';
    case MjAction.Video:
      return '/mj/submit/video';
    case MjAction.Edits:
      return '/mj/submit/edits';
    default:
      if (typeof body.customId === 'string' && body.customId) return '/mj/submit/action';
      if (typeof body.content === 'string' && body.content) return '/mj/submit/simple-change';
      return '/mj/submit/change';
  }
}

async function callUpstream(
  up: TaskUpstream,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<{ status: number; json: unknown }> {
  const { status, json } = await taskRequest(`${up.baseUrl}${path}`, {
    method,
    headers: { 'mj-api-secret': up.key },
    json: body,
    timeoutMs,
    signal: up.signal,
  });
  return { status, json };
}

const isAnswer = (v: unknown): v is MjSubmitAnswer =>
  !!v && typeof v === 'object' && typeof (v as MjSubmitAnswer).code === 'number';

/** Submits one task; codes 1, 21 and 22 are accepted (21 with a finished result is already a success). */
async function submit(req: TaskSubmitRequest): Promise<TaskSubmitResult> {
  let answer: { status: number; json: unknown };
  try {
    answer = await callUpstream(
      req,
      'POST',
      upstreamSubmitPath(req.action, req.body),
      req.body,
      TASK_SUBMIT_TIMEOUT_MS,
    );
  } catch {
    return { ok: false, httpStatus: BAD_GATEWAY, code: MjCode.Unknown, message: 'do_request_failed' };
  }
  const a = answer.json;
  if (!isAnswer(a))
    return {
      ok: false,
      httpStatus: answer.status >= 400 ? answer.status : BAD_GATEWAY,
      code: MjCode.Unknown,
      message: 'unmarshal_response_body_failed',
    };
  const accepted = a.code === MjCode.Submitted || a.code === MjCode.Exists || a.code === MjCode.Queued;
  if (answer.status !== 200 || !accepted || !a.result) {
    const refused: TaskRefused = {
      ok: false,
      httpStatus: answer.status >= 400 ? answer.status : 200,
      code: a.code,
      message: a.description || 'submit_failed',
    };
    // No account instance can serve: the channel is named for the auto-disable hook.
    if (a.code === MjCode.NoAccount)
      refused.unavailable = { channel: req.channel, keyIndex: Math.max(0, req.channel.keys.indexOf(req.key)) };
    return refused;
  }
  const props = a.properties && typeof a.properties === 'object' ? a.properties : undefined;
  let status: TaskStatus | undefined;
  if (a.code === MjCode.Exists && props?.status === MjStatus.Success) status = MjStatus.Success;
  if (req.action === MjAction.Upload) status = MjStatus.Success;
  return {
    ok: true,
    upstreamTaskId: String(a.result),
    code: a.code,
    description: a.description,
    status,
    properties: props,
  };
}

const STATUSES: readonly string[] = Object.values(MjStatus);

/** A midjourney-proxy task object as the engine's state (its times are epoch milliseconds). */
export function taskStateOf(t: Partial<MjTaskView>): TaskState | undefined {
  if (!t || typeof t.id !== 'string' || !t.id) return undefined;
  const status = (STATUSES.includes(t.status ?? '') ? t.status : MjStatus.Submitted) as TaskStatus;
  const seconds = (ms: unknown) => (typeof ms === 'number' && ms > 0 ? Math.floor(ms / MS_PER_SECOND) : undefined);
  return {
    upstreamTaskId: t.id,
    status,
    progress: typeof t.progress === 'string' ? t.progress : undefined,
    failReason: typeof t.failReason === 'string' ? t.failReason : undefined,
    startTime: seconds(t.startTime),
    finishTime: seconds(t.finishTime),
    imageUrl: typeof t.imageUrl === 'string' ? t.imageUrl : undefined,
    promptEn: typeof t.promptEn === 'string' ? t.promptEn : undefined,
    description: typeof t.description === 'string' ? t.description : undefined,
    buttons: Array.isArray(t.buttons) ? t.buttons : undefined,
    properties: t.properties && typeof t.properties === 'object' ? t.properties : undefined,
    urls: videoUrlsOf(t),
  };
}

/** A VIDEO task's videos: `videoUrls[].url`, else `videoUrl`. */
function videoUrlsOf(t: Partial<MjTaskView>): string[] | undefined {
  const list = Array.isArray(t.videoUrls)
    ? t.videoUrls
        .map((v) => (v && typeof v === 'object' ? v.url : undefined))
        .filter((u): u is string => typeof u === 'string' && !!u)
    : [];
  if (list.length) return list;
  return typeof t.videoUrl === 'string' && t.videoUrl ? [t.videoUrl] : undefined;
}

/** Polls a channel's unfinished tasks with one list-by-condition call. */
async function fetchTasks(up: TaskUpstream, ids: readonly string[]): Promise<TaskState[]> {
  const answer = await callUpstream(up, 'POST', '/mj/task/list-by-condition', { ids }, TASK_FETCH_TIMEOUT_MS);
  if (answer.status !== 200 || !Array.isArray(answer.json))
    throw new Error(`midjourney list-by-condition answered ${answer.status}`);
  return (answer.json as Partial<MjTaskView>[]).flatMap((t) => taskStateOf(t) ?? []);
}

/** A GET passed through to the task's channel (image-seed); the upstream's JSON and status. */
export function upstreamGet(up: TaskUpstream, path: string): Promise<{ status: number; json: unknown }> {
  return callUpstream(up, 'GET', path, undefined, TASK_FETCH_TIMEOUT_MS);
}

export const midjourneyPlatform: TaskPlatform = {
  name: 'mj',
  table: 'midjourneys',
  channelTypes: [ChannelType.Midjourney, ChannelType.MidjourneyPlus],
  batchSize: FETCH_BATCH,
  submit,
  fetchTasks,
};
