import { TASK_FAIL_TEXT, TaskStatus } from '../types.js';
import { progressOfStatus, type RemoteVideoTask, type VideoSubmitReq } from './wire.js';

/**
 * Vidu's API: `POST {base}/ent/v2/{text2video|img2video|start-end2video|reference2video}` and
 * `GET {base}/ent/v2/tasks/{id}/creations`, authorized by `Authorization: Token {key}`.
 */

/** new-api's actions of a Vidu task, by its images: none, one (first frame), two (first and last), more (references). */
export const ViduAction = {
  Text: 'textGenerate',
  Image: 'generate',
  FirstTail: 'firstTailGenerate',
  Reference: 'referenceGenerate',
} as const;

const PATHS: Record<string, string> = {
  [ViduAction.Image]: 'img2video',
  [ViduAction.FirstTail]: 'start-end2video',
  [ViduAction.Reference]: 'reference2video',
};
const DEFAULT_MODEL = 'viduq1';
const DEFAULT_DURATION = 5;
const DEFAULT_RESOLUTION = '1080p';
const DEFAULT_MOVEMENT = 'auto';
/** Reference-to-video takes the bare viduq2 model (no pro/turbo suffix). */
const REFERENCE_MODEL = 'viduq2';
const TWO = 2;

const trimSlash = (base: string) => base.replace(/\/+$/, '');
const imagesOf = (req: VideoSubmitReq): string[] => (req.images?.length ? req.images : req.image ? [req.image] : []);

export const viduAuth = (key: string) => `Token ${key}`;

/** The action of a request: `metadata.action` when given, else by the number of images. */
export function viduAction(req: VideoSubmitReq): string {
  const given = req.metadata?.action;
  if (typeof given === 'string' && given) return given;
  const n = imagesOf(req).length;
  if (n === 0) return ViduAction.Text;
  if (n === 1) return ViduAction.Image;
  return n === TWO ? ViduAction.FirstTail : ViduAction.Reference;
}

export const viduSubmitUrl = (base: string, action: string) =>
  `${trimSlash(base)}/ent/v2/${PATHS[action] ?? 'text2video'}`;
export const viduFetchUrl = (base: string, id: string) =>
  `${trimSlash(base)}/ent/v2/tasks/${encodeURIComponent(id)}/creations`;

/** An inline image as the data URL Vidu takes (a URL or a data URL is sent as it is). */
const asImageRef = (s: string) => (/^(https?:|data:)/.test(s) ? s : `data:image/png;base64,${s}`);

/** The submit body with new-api's defaults (5 s, 1080p, auto movement), then the caller's `metadata` over them. */
export function viduRequestBody(req: VideoSubmitReq, upstreamModel: string, action: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: upstreamModel || DEFAULT_MODEL,
    images: imagesOf(req).map(asImageRef),
    prompt: req.prompt,
    duration: req.duration || Number(req.seconds) || DEFAULT_DURATION,
    resolution: req.size || DEFAULT_RESOLUTION,
    movement_amplitude: DEFAULT_MOVEMENT,
  };
  const { callback_url: _drop, action: _action, ...meta } = req.metadata ?? {};
  const out = { ...body, ...meta };
  if (action === ViduAction.Reference && String(out.model).includes(REFERENCE_MODEL)) out.model = REFERENCE_MODEL;
  return out;
}

interface ViduAnswer {
  task_id?: string;
  state?: string;
  err_code?: string;
  creations?: { id?: string; url?: string; cover_url?: string }[];
  message?: string;
  reason?: string;
}

/** A refusal's message: Vidu's `message`, `reason` or `err_code`. */
export function viduMessage(text: string): string | undefined {
  try {
    const b = JSON.parse(text) as ViduAnswer;
    return b.message || b.reason || b.err_code || undefined;
  } catch {
    return undefined;
  }
}

/** The task id of a submit answer; a task already `failed` is an Error. */
export function parseViduSubmitAnswer(text: string): string {
  const body = JSON.parse(text) as ViduAnswer;
  if (body.state === 'failed') throw new Error(body.err_code || 'vidu refused the task');
  if (!body.task_id) throw new Error('vidu answered without a task_id');
  return String(body.task_id);
}

/** Vidu's states (created, queueing, processing, success, failed) as task statuses; the first creation is the video. */
export function parseViduTask(text: string): RemoteVideoTask {
  const body = JSON.parse(text) as ViduAnswer;
  let status: TaskStatus;
  switch (body.state) {
    case 'created':
    case 'queueing':
      status = TaskStatus.Submitted;
      break;
    case 'processing':
      status = TaskStatus.InProgress;
      break;
    case 'success':
      status = TaskStatus.Success;
      break;
    case 'failed':
      status = TaskStatus.Failure;
      break;
    default:
      throw new Error(`vidu answered an unknown state ${String(body.state)}`);
  }
  return {
    status,
    progress: progressOfStatus(status, ''),
    failReason: status === TaskStatus.Failure ? body.err_code || TASK_FAIL_TEXT.failed : '',
    url: status === TaskStatus.Success ? (body.creations?.[0]?.url ?? '') : '',
    seconds: '',
  };
}
