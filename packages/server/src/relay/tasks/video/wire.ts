import { RelayError } from '../../pipeline/errors.js';
import { TaskStatus } from '../types.js';

/** OpenAI-style video generation as new-api serves it: `/v1/video/generations` and `/v1/videos`. */

/** OpenAI's video statuses. */
export const VideoStatus = {
  Queued: 'queued',
  InProgress: 'in_progress',
  Completed: 'completed',
  Failed: 'failed',
} as const;

/** A task status as OpenAI's video status; not-started and unknown tasks read as queued. */
export function videoStatusOf(status: string): string {
  switch (status) {
    case TaskStatus.InProgress:
      return VideoStatus.InProgress;
    case TaskStatus.Success:
      return VideoStatus.Completed;
    case TaskStatus.Failure:
      return VideoStatus.Failed;
    default:
      return VideoStatus.Queued;
  }
}

/** The progress new-api shows for a status when the upstream reports none. */
export function progressOfStatus(status: string, given: string): string {
  if (given) return given;
  switch (status) {
    case TaskStatus.Submitted:
      return '10%';
    case TaskStatus.Queued:
      return '20%';
    case TaskStatus.InProgress:
      return '30%';
    case TaskStatus.Success:
    case TaskStatus.Failure:
      return '100%';
    default:
      return '0%';
  }
}

/** One video task as an upstream reports it. */
export interface RemoteVideoTask {
  status: TaskStatus;
  progress: string;
  failReason: string;
  /** The result's URL, when the upstream gives one. */
  url: string;
  seconds: string;
}

/** new-api's TaskSubmitReq: the body of `POST /v1/video/generations` and JSON `POST /v1/videos`. */
export interface VideoSubmitReq {
  model: string;
  prompt: string;
  mode?: string;
  image?: string;
  images?: string[];
  size?: string;
  duration?: number;
  seconds?: string;
  input_reference?: string;
  metadata?: Record<string, unknown>;
}

/** new-api's action of a remix (`POST /v1/videos/{id}/remix`). */
export const VIDEO_REMIX_ACTION = 'remixGenerate';

/** What a remix sends its platform: the new prompt and the upstream id of the video it remixes. */
export interface VideoRemixBody {
  prompt: string;
  remix_of: string;
}

const PROMPT_MAX = 10_000;
const SHORT_MAX = 100;
/** Image inputs may be data URLs. */
const IMAGE_MAX = 20_000_000;
const IMAGES_MAX = 8;
/** new-api's bound on a task's seconds. */
export const MAX_VIDEO_SECONDS = 60;

const invalid = (message: string, param: string | null = null) =>
  new RelayError(400, message, 'invalid_request_error', 'invalid_request', param);

function optString(b: Record<string, unknown>, key: string, max: number): string | undefined {
  const v = b[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalid(`${key} must be a string`, key);
  if (v.length > max) throw invalid(`${key} is too long`, key);
  return v;
}

/** Whole seconds from a number or a numeric string (new-api accepts both), bounded. */
function seconds(v: unknown, key: string): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n <= 0 || n > MAX_VIDEO_SECONDS)
    throw invalid(`${key} must be a whole number of seconds from 1 to ${MAX_VIDEO_SECONDS}`, key);
  return n;
}

/** Validates a remix body `{prompt}` (OpenAI's VideoRemixParams). */
export function parseVideoRemix(body: unknown): { prompt: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object');
  const prompt = optString(body as Record<string, unknown>, 'prompt', PROMPT_MAX);
  if (!prompt?.trim()) throw invalid('field prompt is required', 'prompt');
  return { prompt };
}

/** Validates a video submit (JSON, or multipart fields as strings): model and prompt are required. */
export function parseVideoSubmit(body: unknown): VideoSubmitReq {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const model = optString(b, 'model', SHORT_MAX);
  if (!model) throw new RelayError(400, 'model is required', 'invalid_request_error', 'missing_model', 'model');
  const prompt = optString(b, 'prompt', PROMPT_MAX);
  if (!prompt?.trim()) throw invalid('field prompt is required', 'prompt');
  let images: string[] | undefined;
  if (b.images !== undefined && b.images !== null) {
    if (
      !Array.isArray(b.images) ||
      b.images.length > IMAGES_MAX ||
      b.images.some((i) => typeof i !== 'string' || i.length > IMAGE_MAX)
    )
      throw invalid(`images must be at most ${IMAGES_MAX} strings`, 'images');
    images = b.images as string[];
  }
  let metadata: Record<string, unknown> | undefined;
  if (b.metadata !== undefined && b.metadata !== null) {
    const m = typeof b.metadata === 'string' ? parseJsonObject(b.metadata) : b.metadata;
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw invalid('metadata must be an object', 'metadata');
    metadata = m as Record<string, unknown>;
  }
  const duration = seconds(b.duration, 'duration');
  const secs = seconds(b.seconds, 'seconds');
  return {
    model,
    prompt,
    mode: optString(b, 'mode', SHORT_MAX),
    image: optString(b, 'image', IMAGE_MAX),
    images,
    size: optString(b, 'size', SHORT_MAX),
    duration,
    seconds: secs === undefined ? undefined : String(secs),
    input_reference: optString(b, 'input_reference', IMAGE_MAX),
    metadata,
  };
}

function parseJsonObject(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The stored fields of a video task an answer is built from. */
export interface VideoTaskView {
  task_id: string;
  model: string;
  status: string;
  progress: string;
  fail_reason: string;
  submit_time: number;
  finish_time: number;
  url: string;
  seconds: string;
  size: string;
  /** The public id of the video a remix was made from. */
  remixed_from?: string;
}

/** new-api's OpenAIVideo object of a stored task (`id` and the legacy `task_id` are the public id). */
export function openAIVideo(t: VideoTaskView) {
  const status = videoStatusOf(t.status);
  const video: Record<string, unknown> = {
    id: t.task_id,
    task_id: t.task_id,
    object: 'video',
    model: t.model,
    status,
    progress: Number.parseInt(t.progress, 10) || 0,
    created_at: t.submit_time,
  };
  if (t.finish_time && (status === VideoStatus.Completed || status === VideoStatus.Failed))
    video.completed_at = t.finish_time;
  if (t.seconds) video.seconds = t.seconds;
  if (t.size) video.size = t.size;
  if (status === VideoStatus.Failed) video.error = { message: t.fail_reason || 'task failed', code: 'task_failed' };
  if (t.url) video.metadata = { url: t.url };
  if (t.remixed_from) video.remixed_from_video_id = t.remixed_from;
  return video;
}
