import { TASK_FAIL_TEXT, TaskStatus } from '../types.js';
import { klingKeys } from './kling.js';
import { volcSign } from './volc-sign.js';
import { progressOfStatus, type RemoteVideoTask, type VideoSubmitReq } from './wire.js';

/**
 * Jimeng (Volcengine's visual API): `POST {base}/?Action=CVSync2AsyncSubmitTask&Version=2022-08-31` and
 * `…CVSync2AsyncGetResult…`, each signed with the channel key `AccessKey|SecretKey` (volc-sign.ts). The model is
 * the vendor's `req_key`, which the result call needs again: the stored upstream id is `{req_key}:{task_id}`.
 */

const VERSION = '2022-08-31';
const SUBMIT_ACTION = 'CVSync2AsyncSubmitTask';
const RESULT_ACTION = 'CVSync2AsyncGetResult';
/** Jimeng's success code. */
export const JIMENG_OK = 10000;
export const JIMENG_DEFAULT_REQ_KEY = 'jimeng_vgfm_t2v_l20';
/** Frames at 24 fps: a 10-second video is 241 frames, any other length the default 5 s (121). */
const FRAMES_10S = 241;
const FRAMES_5S = 121;
const TEN_SECONDS = 10;
/** A random seed. */
const RANDOM_SEED = -1;
const DEFAULT_ASPECT = '16:9';
/** Jimeng's own limit on one inline image (4.7 MB). */
export const JIMENG_IMAGE_MAX_BYTES = 4 * 1024 * 1024 + 700 * 1024;
const UPSTREAM_ID = /^([A-Za-z0-9_.-]{1,128}):([A-Za-z0-9_.-]{1,128})$/;
const BARE_ID = /^[A-Za-z0-9_.-]{1,128}$/;
const CONTENT_TYPE = 'application/json';

/** A `sk-` key is another new-api in front of Jimeng: its routes sit under /jimeng and it takes the key itself. */
const isGatewayKey = (key: string) => key.startsWith('sk-');
const trimSlash = (base: string) => base.replace(/\/+$/, '');

const actionUrl = (base: string, key: string, action: string) =>
  `${trimSlash(base)}${isGatewayKey(key) ? '/jimeng' : ''}/?Action=${action}&Version=${VERSION}`;

/** A signed (or, for a gateway key, bearer) JSON POST: its URL, headers and exact body bytes. */
export function jimengRequest(
  base: string,
  key: string,
  action: 'submit' | 'result',
  payload: unknown,
): { url: string; headers: Record<string, string>; body: Buffer } | { error: string } {
  const url = actionUrl(base, key, action === 'submit' ? SUBMIT_ACTION : RESULT_ACTION);
  const body = Buffer.from(JSON.stringify(payload));
  if (isGatewayKey(key))
    return { url, body, headers: { 'content-type': CONTENT_TYPE, authorization: `Bearer ${key}` } };
  const keys = klingKeys(key);
  if (!keys) return { error: 'a Jimeng channel key is AccessKey|SecretKey' };
  return {
    url,
    body,
    headers: volcSign({ method: 'POST', url: new URL(url), body, contentType: CONTENT_TYPE, ...keys }),
  };
}

/** Jimeng 3.0's req_key by request shape (text, first frame, first and last frame), as new-api resolves it. */
export function jimengReqKey(model: string, images: number): string {
  if (!model.includes('jimeng_v30')) return model;
  if (model === 'jimeng_v30_pro') return 'jimeng_ti2v_v30_pro';
  if (images > 1) return model.replace('jimeng_v30', 'jimeng_i2v_first_tail_v30').replace(/p$/, '');
  if (images === 1) return model.replace('jimeng_v30', 'jimeng_i2v_first_v30').replace(/p$/, '');
  return model.replace('jimeng_v30', 'jimeng_t2v_v30');
}

function aspectRatio(size: string | undefined): string {
  switch (size) {
    case '720x1280':
    case '1080x1920':
      return '9:16';
    case '1024x1024':
    case '720x720':
      return '1:1';
    default:
      return DEFAULT_ASPECT;
  }
}

const imagesOf = (req: VideoSubmitReq): string[] => (req.images?.length ? req.images : req.image ? [req.image] : []);

/** The submit body: req_key, prompt, frames by duration, images as URLs or inline base64; `metadata` over it. */
export function jimengRequestBody(req: VideoSubmitReq, upstreamModel: string): Record<string, unknown> {
  const images = imagesOf(req);
  const seconds = req.duration ?? Number(req.seconds ?? 0);
  const body: Record<string, unknown> = {
    req_key: upstreamModel || JIMENG_DEFAULT_REQ_KEY,
    prompt: req.prompt,
    seed: RANDOM_SEED,
    aspect_ratio: aspectRatio(req.size),
    frames: seconds === TEN_SECONDS ? FRAMES_10S : FRAMES_5S,
  };
  if (images.length) {
    if (images[0]!.startsWith('http')) body.image_urls = images;
    else body.binary_data_base64 = images;
  }
  const { callback_url: _drop, ...meta } = req.metadata ?? {};
  const out = { ...body, ...meta };
  const count = Math.max(images.length, arrayLength(out.image_urls), arrayLength(out.binary_data_base64));
  out.req_key = jimengReqKey(String(out.req_key), count);
  return out;
}

const arrayLength = (v: unknown) => (Array.isArray(v) ? v.length : 0);

export const jimengUpstreamId = (reqKey: string, taskId: string) => `${reqKey}:${taskId}`;
/**
 * The req_key and task id of a stored upstream id; a bare task id (a task imported from new-api) is polled under
 * the default req_key, as new-api does without one. Undefined when it is neither.
 */
export function jimengIdParts(upstreamId: string): { reqKey: string; taskId: string } | undefined {
  const m = UPSTREAM_ID.exec(upstreamId);
  if (m) return { reqKey: m[1]!, taskId: m[2]! };
  return BARE_ID.test(upstreamId) ? { reqKey: JIMENG_DEFAULT_REQ_KEY, taskId: upstreamId } : undefined;
}

interface JimengAnswer {
  code?: number;
  message?: string;
  data?: { task_id?: string; status?: string; video_url?: string } | null;
  /** Volcengine's gateway errors (signature, access): `ResponseMetadata.Error`. */
  ResponseMetadata?: { Error?: { Code?: string; Message?: string } };
}

/** The message of a refusal: Jimeng's `message`, or the gateway's `ResponseMetadata.Error`. */
export function jimengMessage(text: string): string | undefined {
  try {
    const b = JSON.parse(text) as JimengAnswer;
    const e = b.ResponseMetadata?.Error;
    return b.message || (e ? `${e.Code ?? ''}: ${e.Message ?? ''}` : undefined);
  } catch {
    return undefined;
  }
}

/** The task id of a submit answer, or an Error with Jimeng's message (code ≠ 10000). */
export function parseJimengSubmitAnswer(text: string): string {
  const body = JSON.parse(text) as JimengAnswer;
  if (body.code !== JIMENG_OK) throw new Error(body.message || `jimeng refused the task (code ${String(body.code)})`);
  const id = body.data?.task_id;
  if (!id) throw new Error('jimeng answered without a task_id');
  return id;
}

/** Jimeng's statuses (in_queue, generating, done, not_found, expired) as task statuses; code ≠ 10000 failed. */
export function parseJimengTask(text: string): RemoteVideoTask {
  const body = JSON.parse(text) as JimengAnswer;
  const d = body.data ?? {};
  let status: TaskStatus;
  if (body.code !== JIMENG_OK) status = TaskStatus.Failure;
  else if (d.status === 'in_queue') status = TaskStatus.Queued;
  else if (d.status === 'generating') status = TaskStatus.InProgress;
  else if (d.status === 'done') status = TaskStatus.Success;
  else if (d.status === 'not_found' || d.status === 'expired') status = TaskStatus.Failure;
  else status = TaskStatus.Unknown;
  return {
    status,
    progress: progressOfStatus(status, ''),
    failReason:
      status === TaskStatus.Failure ? body.message || (d.status ? `task ${d.status}` : TASK_FAIL_TEXT.failed) : '',
    url: status === TaskStatus.Success ? (d.video_url ?? '') : '',
    seconds: '',
  };
}
