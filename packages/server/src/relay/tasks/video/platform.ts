import { ChannelType } from '@tollway/shared';
import type { TaskPlatform, TaskState, TaskSubmitRequest, TaskSubmitResult, TaskUpstream } from '../types.js';
import { TASK_FETCH_TIMEOUT_MS, TASK_SUBMIT_TIMEOUT_MS, taskRequest, type TaskHttpOptions } from '../upstream-http.js';
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
import { VIDEO_REMIX_ACTION, type RemoteVideoTask, type VideoRemixBody, type VideoSubmitReq } from './wire.js';

/** Platform names (the `platform` column of video tasks). */
export const KLING_PLATFORM = 'kling';
export const OPENAI_VIDEO_PLATFORM = 'sora';

/** Upstream status for a call that never got an answer, or answered what cannot be read. */
const BAD_GATEWAY = 502;
/** Polls run per task (one GET each); this many in one batch. */
const VIDEO_FETCH_BATCH = 20;

type Sent = { status: number; text: string } | { error: string };

async function send(url: string, o: TaskHttpOptions): Promise<Sent> {
  try {
    const res = await taskRequest(url, o);
    return { status: res.status, text: res.text };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** The caller sees an upstream 4xx as it is (a bad prompt, a refused image); anything else is a bad gateway. */
function submitRefused(sent: Sent, message?: string): TaskSubmitResult {
  if ('error' in sent)
    return {
      ok: false,
      httpStatus: BAD_GATEWAY,
      code: 'do_request_failed',
      message: `the upstream could not be reached: ${sent.error}`,
    };
  const status = sent.status >= 400 && sent.status < 500 ? sent.status : BAD_GATEWAY;
  return {
    ok: false,
    httpStatus: status,
    code: 'fail_to_fetch_task',
    message: message ?? (sent.text.slice(0, 500) || `the upstream answered ${sent.status}`),
  };
}

const toState = (upstreamTaskId: string, t: RemoteVideoTask): TaskState => ({
  upstreamTaskId,
  status: t.status,
  progress: t.progress,
  failReason: t.failReason || undefined,
  urls: t.url ? [t.url] : undefined,
  data: { status: t.status, url: t.url, seconds: t.seconds },
});

/** Polls each id with one GET; a task whose poll fails is skipped until the next round. */
async function pollEach(
  ids: readonly string[],
  poll: (id: string) => Promise<TaskState | undefined>,
): Promise<TaskState[]> {
  const out: TaskState[] = [];
  for (const id of ids) {
    const state = await poll(id).catch(() => undefined);
    if (state) out.push(state);
  }
  return out;
}

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
    return submitRefused(sent, 'error' in sent ? undefined : klingMessage(sent.text));
  try {
    return { ok: true, upstreamTaskId: klingUpstreamId(body, parseKlingSubmitAnswer(sent.text)) };
  } catch (err) {
    return { ok: false, httpStatus: 400, code: 'task_failed', message: (err as Error).message };
  }
}

function klingMessage(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { message?: string }).message || undefined;
  } catch {
    return undefined;
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
    return { ok: false, httpStatus: BAD_GATEWAY, code: 'invalid_response', message: (err as Error).message };
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
