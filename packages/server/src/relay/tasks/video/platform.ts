import { ChannelType } from '@tollway/shared';
import type { TaskPlatform, TaskState, TaskSubmitRequest, TaskSubmitResult, TaskUpstream } from '../types.js';
import {
  answerMessage,
  invalidAnswer,
  pollEach,
  send,
  submitRefused,
  toState,
  VIDEO_FETCH_BATCH,
} from './vendor-http.js';
import { TASK_FETCH_TIMEOUT_MS, TASK_SUBMIT_TIMEOUT_MS, type TaskHttpOptions } from '../upstream-http.js';
import {
  klingBearer,
  klingFetchUrl,
  klingRequestBody,
  klingSubmitUrl,
  klingUpstreamId,
  parseKlingSubmitAnswer,
  parseKlingTask,
} from './kling.js';
import {
  openAIVideoFetchUrl,
  openAIVideoRemixUrl,
  openAIVideoRequestBody,
  openAIVideoSubmitUrl,
  parseOpenAIVideoSubmitAnswer,
  parseOpenAIVideoTask,
} from './openai.js';
import { uploadForm, uploadOf } from './upload.js';
import { VIDEO_REMIX_ACTION, type VideoRemixBody, type VideoSubmitReq } from './wire.js';

/** Platform names (the `platform` column of video tasks). */
export const KLING_PLATFORM = 'kling';
export const OPENAI_VIDEO_PLATFORM = 'sora';

async function klingSubmit(req: TaskSubmitRequest): Promise<TaskSubmitResult> {
  if (req.action === VIDEO_REMIX_ACTION)
    return {
      ok: false,
      httpStatus: 400,
      code: 'unsupported_operation',
      message: 'Kling channels cannot remix a video',
    };
  const body = req.body as unknown as VideoSubmitReq;
  const sent = await send(klingSubmitUrl(req.baseUrl, req.key, body), {
    headers: { authorization: `Bearer ${klingBearer(req.key)}` },
    json: klingRequestBody(body, req.model),
    timeoutMs: TASK_SUBMIT_TIMEOUT_MS,
    signal: req.signal,
  });
  if ('error' in sent || sent.status !== 200)
    return submitRefused(sent, 'error' in sent ? undefined : answerMessage(sent.text, (b) => b.message));
  try {
    return { ok: true, upstreamTaskId: klingUpstreamId(body, parseKlingSubmitAnswer(sent.text)) };
  } catch (err) {
    return { ok: false, httpStatus: 400, code: 'task_failed', message: (err as Error).message };
  }
}

async function klingFetch(upstream: TaskUpstream, ids: readonly string[]): Promise<TaskState[]> {
  return pollEach(ids, async (id) => {
    const url = klingFetchUrl(upstream.baseUrl, upstream.key, id);
    if (!url) return undefined;
    const sent = await send(url, {
      headers: { authorization: `Bearer ${klingBearer(upstream.key)}` },
      timeoutMs: TASK_FETCH_TIMEOUT_MS,
      signal: upstream.signal,
    });
    if ('error' in sent || sent.status !== 200) return undefined;
    return toState(id, parseKlingTask(sent.text));
  });
}

/** What an OpenAI-compatible submit sends: a remix of an earlier video, the caller's form with its file, or JSON. */
function openAIRequest(req: TaskSubmitRequest): { url: string; o: TaskHttpOptions } {
  const auth = { authorization: `Bearer ${req.key}` };
  const common = { timeoutMs: TASK_SUBMIT_TIMEOUT_MS, signal: req.signal };
  if (req.action === VIDEO_REMIX_ACTION) {
    const r = req.body as unknown as VideoRemixBody;
    return {
      url: openAIVideoRemixUrl(req.baseUrl, r.remix_of),
      o: { ...common, headers: auth, json: { prompt: r.prompt } },
    };
  }
  const upload = uploadOf(req.body);
  if (upload) {
    // Streamed from the spool: the file is never held in memory.
    const form = uploadForm(upload, req.model);
    return {
      url: openAIVideoSubmitUrl(req.baseUrl),
      o: {
        ...common,
        method: 'POST',
        headers: { ...auth, 'content-type': form.contentType, 'content-length': String(form.length) },
        body: form.body,
      },
    };
  }
  return {
    url: openAIVideoSubmitUrl(req.baseUrl),
    o: { ...common, headers: auth, json: openAIVideoRequestBody(req.body as unknown as VideoSubmitReq, req.model) },
  };
}

async function openAISubmit(req: TaskSubmitRequest): Promise<TaskSubmitResult> {
  const { url, o } = openAIRequest(req);
  const sent = await send(url, o);
  if ('error' in sent || sent.status !== 200) return submitRefused(sent);
  try {
    return { ok: true, upstreamTaskId: parseOpenAIVideoSubmitAnswer(sent.text) };
  } catch (err) {
    return invalidAnswer(err);
  }
}

async function openAIFetch(upstream: TaskUpstream, ids: readonly string[]): Promise<TaskState[]> {
  return pollEach(ids, async (id) => {
    const sent = await send(openAIVideoFetchUrl(upstream.baseUrl, id), {
      headers: { authorization: `Bearer ${upstream.key}` },
      timeoutMs: TASK_FETCH_TIMEOUT_MS,
      signal: upstream.signal,
    });
    if ('error' in sent || sent.status !== 200) return undefined;
    return toState(id, parseOpenAIVideoTask(sent.text));
  });
}

/** Kling's native API (channel type Kling, key `accessKey|secretKey`). */
export const klingPlatform: TaskPlatform = {
  name: KLING_PLATFORM,
  table: 'tasks',
  channelTypes: [ChannelType.Kling],
  batchSize: VIDEO_FETCH_BATCH,
  submit: klingSubmit,
  fetchTasks: klingFetch,
};

/** An OpenAI-compatible video upstream: Sora, or an OpenAI channel serving video models. */
export const openAIVideoPlatform: TaskPlatform = {
  name: OPENAI_VIDEO_PLATFORM,
  table: 'tasks',
  channelTypes: [ChannelType.Sora, ChannelType.OpenAI],
  batchSize: VIDEO_FETCH_BATCH,
  submit: openAISubmit,
  fetchTasks: openAIFetch,
};
