import { ChannelType } from '@tollway/shared';
import type { TaskPlatform, TaskState, TaskSubmitRequest, TaskSubmitResult, TaskUpstream } from '../types.js';
import { TASK_FETCH_TIMEOUT_MS, TASK_SUBMIT_TIMEOUT_MS } from '../upstream-http.js';
import {
  doubaoFetchUrl,
  doubaoMessage,
  doubaoRequestBody,
  doubaoSubmitUrl,
  parseDoubaoSubmitAnswer,
  parseDoubaoTask,
} from './doubao.js';
import {
  jimengIdParts,
  jimengMessage,
  jimengRequest,
  jimengRequestBody,
  jimengUpstreamId,
  parseJimengSubmitAnswer,
  parseJimengTask,
} from './jimeng.js';
import { invalidAnswer, pollEach, send, submitRefused, toState, VIDEO_FETCH_BATCH } from './vendor-http.js';
import {
  parseViduSubmitAnswer,
  parseViduTask,
  viduAuth,
  viduFetchUrl,
  viduMessage,
  viduRequestBody,
  viduSubmitUrl,
} from './vidu.js';
import { VIDEO_REMIX_ACTION, type VideoSubmitReq } from './wire.js';

/** The native video vendors beside Kling: Jimeng, Vidu and Doubao (Seedance). Platform names are the `platform` column. */
export const JIMENG_PLATFORM = 'jimeng';
export const VIDU_PLATFORM = 'vidu';
export const DOUBAO_VIDEO_PLATFORM = 'doubao';

const noRemix = (vendor: string): TaskSubmitResult => ({
  ok: false,
  httpStatus: 400,
  code: 'unsupported_operation',
  message: `${vendor} channels cannot remix a video`,
});

/** A refused submit: the vendor's message when it gave one. */
const refusedWith = (sent: Awaited<ReturnType<typeof send>>, message: (text: string) => string | undefined) =>
  submitRefused(sent, 'error' in sent ? undefined : message(sent.text));

async function jimengSubmit(req: TaskSubmitRequest): Promise<TaskSubmitResult> {
  if (req.action === VIDEO_REMIX_ACTION) return noRemix('Jimeng');
  const payload = jimengRequestBody(req.body as unknown as VideoSubmitReq, req.model);
  const r = jimengRequest(req.baseUrl, req.key, 'submit', payload);
  if ('error' in r) return { ok: false, httpStatus: 502, code: 'invalid_key', message: r.error };
  const sent = await send(r.url, {
    headers: r.headers,
    body: r.body,
    timeoutMs: TASK_SUBMIT_TIMEOUT_MS,
    signal: req.signal,
  });
  if ('error' in sent || sent.status !== 200) return refusedWith(sent, jimengMessage);
  try {
    return { ok: true, upstreamTaskId: jimengUpstreamId(String(payload.req_key), parseJimengSubmitAnswer(sent.text)) };
  } catch (err) {
    return { ok: false, httpStatus: 400, code: 'task_failed', message: (err as Error).message };
  }
}

async function jimengFetch(upstream: TaskUpstream, ids: readonly string[]): Promise<TaskState[]> {
  return pollEach(ids, async (id) => {
    const parts = jimengIdParts(id);
    if (!parts) return undefined;
    const r = jimengRequest(upstream.baseUrl, upstream.key, 'result', { req_key: parts.reqKey, task_id: parts.taskId });
    if ('error' in r) return undefined;
    const sent = await send(r.url, {
      headers: r.headers,
      body: r.body,
      timeoutMs: TASK_FETCH_TIMEOUT_MS,
      signal: upstream.signal,
    });
    // Only an answer about the task counts: a refused call (signature, access, throttling) is tried again later.
    if ('error' in sent || sent.status !== 200) return undefined;
    return toState(id, parseJimengTask(sent.text));
  });
}

async function viduSubmit(req: TaskSubmitRequest): Promise<TaskSubmitResult> {
  if (req.action === VIDEO_REMIX_ACTION) return noRemix('Vidu');
  const body = req.body as unknown as VideoSubmitReq;
  const sent = await send(viduSubmitUrl(req.baseUrl, req.action), {
    headers: { authorization: viduAuth(req.key) },
    json: viduRequestBody(body, req.model, req.action),
    timeoutMs: TASK_SUBMIT_TIMEOUT_MS,
    signal: req.signal,
  });
  if ('error' in sent || sent.status !== 200) return refusedWith(sent, viduMessage);
  try {
    return { ok: true, upstreamTaskId: parseViduSubmitAnswer(sent.text) };
  } catch (err) {
    return { ok: false, httpStatus: 400, code: 'task_failed', message: (err as Error).message };
  }
}

async function viduFetch(upstream: TaskUpstream, ids: readonly string[]): Promise<TaskState[]> {
  return pollEach(ids, async (id) => {
    const sent = await send(viduFetchUrl(upstream.baseUrl, id), {
      headers: { authorization: viduAuth(upstream.key) },
      timeoutMs: TASK_FETCH_TIMEOUT_MS,
      signal: upstream.signal,
    });
    if ('error' in sent || sent.status !== 200) return undefined;
    return toState(id, parseViduTask(sent.text));
  });
}

async function doubaoSubmit(req: TaskSubmitRequest): Promise<TaskSubmitResult> {
  if (req.action === VIDEO_REMIX_ACTION) return noRemix('Doubao');
  const sent = await send(doubaoSubmitUrl(req.baseUrl), {
    headers: { authorization: `Bearer ${req.key}` },
    json: doubaoRequestBody(req.body as unknown as VideoSubmitReq, req.model),
    timeoutMs: TASK_SUBMIT_TIMEOUT_MS,
    signal: req.signal,
  });
  if ('error' in sent || sent.status !== 200) return refusedWith(sent, doubaoMessage);
  try {
    return { ok: true, upstreamTaskId: parseDoubaoSubmitAnswer(sent.text) };
  } catch (err) {
    return invalidAnswer(err);
  }
}

async function doubaoFetch(upstream: TaskUpstream, ids: readonly string[]): Promise<TaskState[]> {
  return pollEach(ids, async (id) => {
    const sent = await send(doubaoFetchUrl(upstream.baseUrl, id), {
      headers: { authorization: `Bearer ${upstream.key}` },
      timeoutMs: TASK_FETCH_TIMEOUT_MS,
      signal: upstream.signal,
    });
    if ('error' in sent || sent.status !== 200) return undefined;
    return toState(id, parseDoubaoTask(sent.text));
  });
}

/** A video platform of one channel type: rows in `tasks`, polled one GET (or POST) per task, in batches. */
const videoPlatform = (
  name: string,
  type: number,
  submit: TaskPlatform['submit'],
  fetchTasks: TaskPlatform['fetchTasks'],
): TaskPlatform => ({ name, table: 'tasks', channelTypes: [type], batchSize: VIDEO_FETCH_BATCH, submit, fetchTasks });

/** Jimeng (channel type Jimeng, key `AccessKey|SecretKey`, requests signed). */
export const jimengPlatform = videoPlatform(JIMENG_PLATFORM, ChannelType.Jimeng, jimengSubmit, jimengFetch);
/** Vidu (channel type Vidu, `Token` key). */
export const viduPlatform = videoPlatform(VIDU_PLATFORM, ChannelType.Vidu, viduSubmit, viduFetch);
/** Doubao video (channel type DoubaoVideo, Ark API key). */
export const doubaoVideoPlatform = videoPlatform(
  DOUBAO_VIDEO_PLATFORM,
  ChannelType.DoubaoVideo,
  doubaoSubmit,
  doubaoFetch,
);
