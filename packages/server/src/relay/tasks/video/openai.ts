import { TASK_FAIL_TEXT, TaskStatus } from '../types.js';
import { progressOfStatus, type RemoteVideoTask, type VideoSubmitReq } from './wire.js';

/** An OpenAI-compatible video upstream (Sora, or an OpenAI channel): `POST /v1/videos`, `GET /v1/videos/{id}`. */

const trimSlash = (base: string) => base.replace(/\/+$/, '');

export const openAIVideoSubmitUrl = (base: string) => `${trimSlash(base)}/v1/videos`;
export const openAIVideoFetchUrl = (base: string, upstreamId: string) =>
  `${trimSlash(base)}/v1/videos/${encodeURIComponent(upstreamId)}`;
export const openAIVideoRemixUrl = (base: string, upstreamId: string) =>
  `${trimSlash(base)}/v1/videos/${encodeURIComponent(upstreamId)}/remix`;
export const openAIVideoContentUrl = (base: string, upstreamId: string) =>
  `${trimSlash(base)}/v1/videos/${encodeURIComponent(upstreamId)}/content`;

/** The JSON body sent upstream: OpenAI's fields, the model as mapped for the channel. */
export function openAIVideoRequestBody(req: VideoSubmitReq, upstreamModel: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model: upstreamModel, prompt: req.prompt };
  const secs = req.seconds ?? (req.duration ? String(req.duration) : undefined);
  if (secs) body.seconds = secs;
  if (req.size) body.size = req.size;
  if (req.input_reference) body.input_reference = req.input_reference;
  return body;
}

interface OpenAIVideoAnswer {
  id?: string;
  task_id?: string;
  status?: string;
  progress?: number;
  seconds?: string;
  error?: { message?: string; code?: string } | null;
}

/** The upstream id of a submit answer (`id`, or the legacy `task_id`). */
export function parseOpenAIVideoSubmitAnswer(text: string): string {
  const body = JSON.parse(text) as OpenAIVideoAnswer;
  const id = body.id || body.task_id;
  if (!id) throw new Error('the upstream answered without a video id');
  return id;
}

/** An upstream video object as a task update; its synonyms for the states read as new-api reads them. */
export function parseOpenAIVideoTask(text: string): RemoteVideoTask {
  const body = JSON.parse(text) as OpenAIVideoAnswer;
  let status: TaskStatus;
  switch ((body.status ?? '').trim().toLowerCase()) {
    case 'processing':
    case 'in_progress':
    case 'running':
    case 'generating':
      status = TaskStatus.InProgress;
      break;
    case 'completed':
    case 'complete':
    case 'success':
    case 'succeeded':
    case 'finished':
      status = TaskStatus.Success;
      break;
    case 'failed':
    case 'failure':
    case 'fail':
    case 'error':
    case 'cancelled':
    case 'canceled':
      status = TaskStatus.Failure;
      break;
    default:
      status = TaskStatus.Queued;
  }
  const given =
    typeof body.progress === 'number' && body.progress > 0 && body.progress < 100
      ? `${Math.trunc(body.progress)}%`
      : '';
  return {
    status,
    progress: progressOfStatus(status, status === TaskStatus.Success || status === TaskStatus.Failure ? '' : given),
    failReason: status === TaskStatus.Failure ? body.error?.message || TASK_FAIL_TEXT.failed : '',
    // The result is served through the gateway's content route; the upstream URL needs its key.
    url: '',
    seconds: body.seconds ?? '',
  };
}
