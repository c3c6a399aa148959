import crypto from 'node:crypto';
import { TASK_FAIL_TEXT, TaskStatus } from '../types.js';
import { progressOfStatus, type RemoteVideoTask, type VideoSubmitReq } from './wire.js';

/** Kling's native API: JWT (HS256, iss = access key) from a channel key `accessKey|secretKey`. */

/** Seconds a signed token is valid, and how far back its not-before reaches (clock skew). */
export const KLING_JWT_TTL_SECONDS = 1800;
export const KLING_JWT_SKEW_SECONDS = 5;

/** Kling's actions: a task with an image is image-to-video (new-api's `generate`), else text-to-video. */
export const KlingAction = { Image: 'generate', Text: 'textGenerate' } as const;
const TEXT_KIND = 'text2video';
const IMAGE_KIND = 'image2video';
/** A stored upstream id: `{text2video|image2video}-{kling task id}`, since Kling's fetch path names the kind. */
const UPSTREAM_ID = /^(text2video|image2video)-([A-Za-z0-9._-]{1,128})$/;
const DEFAULT_MODEL = 'kling-v1';
const DEFAULT_MODE = 'std';
const DEFAULT_DURATION = 5;
const DEFAULT_CFG_SCALE = 0.5;

/** A `sk-` key is another new-api in front of Kling: its routes sit under /kling and it takes the key itself. */
const isGatewayKey = (key: string) => key.startsWith('sk-');

const b64url = (buf: Buffer | string) => Buffer.from(buf).toString('base64url');

/** The access and secret key of a channel key `ak|sk`, or undefined when it is not of that form. */
export function klingKeys(key: string): { accessKey: string; secretKey: string } | undefined {
  const parts = key.split('|');
  if (parts.length !== 2) return undefined;
  const accessKey = parts[0]!.trim();
  const secretKey = parts[1]!.trim();
  return accessKey && secretKey ? { accessKey, secretKey } : undefined;
}

/** An HS256 JWT for Kling: `{iss: ak, exp: now+1800, nbf: now-5}` signed with the secret key. */
export function klingJwt(accessKey: string, secretKey: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(
    JSON.stringify({
      iss: accessKey,
      exp: nowSeconds + KLING_JWT_TTL_SECONDS,
      nbf: nowSeconds - KLING_JWT_SKEW_SECONDS,
    }),
  );
  const signature = b64url(crypto.createHmac('sha256', secretKey).update(`${header}.${payload}`).digest());
  return `${header}.${payload}.${signature}`;
}

/** The bearer a Kling channel sends: a fresh JWT for `ak|sk`; a gateway key (`sk-…`, another new-api) as it is. */
export function klingBearer(key: string): string {
  const keys = isGatewayKey(key) ? undefined : klingKeys(key);
  return keys ? klingJwt(keys.accessKey, keys.secretKey) : key;
}

const trimSlash = (base: string) => base.replace(/\/+$/, '');
const kindOf = (req: VideoSubmitReq) => (req.image || req.images?.length ? IMAGE_KIND : TEXT_KIND);

/** new-api's action of a video task: `generate` with an image, else `textGenerate`. */
export const klingAction = (req: VideoSubmitReq) => (kindOf(req) === IMAGE_KIND ? KlingAction.Image : KlingAction.Text);
const rootOf = (base: string, key: string) => `${trimSlash(base)}${isGatewayKey(key) ? '/kling' : ''}`;

export const klingSubmitUrl = (base: string, key: string, req: VideoSubmitReq) =>
  `${rootOf(base, key)}/v1/videos/${kindOf(req)}`;
/** The stored upstream id of a Kling task id for a request. */
export const klingUpstreamId = (req: VideoSubmitReq, klingTaskId: string) => `${kindOf(req)}-${klingTaskId}`;
/** The fetch URL of a stored upstream id, or undefined when it is not one of ours. */
export function klingFetchUrl(base: string, key: string, upstreamId: string): string | undefined {
  const m = UPSTREAM_ID.exec(upstreamId);
  return m ? `${rootOf(base, key)}/v1/videos/${m[1]}/${m[2]}` : undefined;
}

/** OpenAI sizes → Kling aspect ratios, as new-api maps them. */
function aspectRatio(size: string | undefined): string {
  switch (size) {
    case '1280x720':
    case '1920x1080':
      return '16:9';
    case '720x1280':
    case '1080x1920':
      return '9:16';
    default:
      return '1:1';
  }
}

/** Kling's request body for a task: defaults as new-api's, then the caller's `metadata` over them. */
export function klingRequestBody(req: VideoSubmitReq, upstreamModel: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    prompt: req.prompt,
    mode: req.mode || DEFAULT_MODE,
    duration: String(req.duration || Number(req.seconds) || DEFAULT_DURATION),
    aspect_ratio: aspectRatio(req.size),
    model_name: upstreamModel || DEFAULT_MODEL,
    model: upstreamModel || DEFAULT_MODEL,
    cfg_scale: DEFAULT_CFG_SCALE,
  };
  const image = req.image || req.images?.[0];
  if (image) body.image = image;
  // The gateway polls; a callback to a caller's host is never forwarded.
  const { callback_url: _drop, ...meta } = req.metadata ?? {};
  return { ...body, ...meta };
}

interface KlingAnswer {
  code?: number;
  message?: string;
  data?: {
    task_id?: string;
    task_status?: string;
    task_status_msg?: string;
    task_result?: { videos?: { id?: string; url?: string; duration?: string }[] };
    created_at?: number;
    updated_at?: number;
  };
}

/** The upstream task id of a submit answer, or an Error with Kling's message (code ≠ 0). */
export function parseKlingSubmitAnswer(text: string): string {
  const body = JSON.parse(text) as KlingAnswer;
  if (body.code !== 0) throw new Error(body.message || `kling refused the task (code ${String(body.code)})`);
  const id = body.data?.task_id;
  if (!id) throw new Error('kling answered without a task_id');
  return id;
}

/** Kling's statuses (submitted, processing, succeed, failed) as task statuses. */
export function parseKlingTask(text: string): RemoteVideoTask {
  const body = JSON.parse(text) as KlingAnswer;
  if (body.code !== 0) throw new Error(body.message || `kling fetch failed (code ${String(body.code)})`);
  const d = body.data ?? {};
  const video = d.task_result?.videos?.[0];
  const status =
    d.task_status === 'submitted'
      ? TaskStatus.Submitted
      : d.task_status === 'processing'
        ? TaskStatus.InProgress
        : d.task_status === 'succeed'
          ? TaskStatus.Success
          : d.task_status === 'failed'
            ? TaskStatus.Failure
            : TaskStatus.Unknown;
  return {
    status,
    progress: progressOfStatus(status, ''),
    failReason: status === TaskStatus.Failure ? d.task_status_msg || TASK_FAIL_TEXT.failed : '',
    url: video?.url ?? '',
    seconds: video?.duration ?? '',
  };
}
