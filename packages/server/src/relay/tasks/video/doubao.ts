import { TASK_FAIL_TEXT, TaskStatus } from '../types.js';
import { progressOfStatus, type RemoteVideoTask, type VideoSubmitReq } from './wire.js';

/**
 * Doubao video (Volcengine Ark's Seedance): `POST {base}/api/v3/contents/generations/tasks` and
 * `GET {base}/api/v3/contents/generations/tasks/{id}`, with `Authorization: Bearer {key}`.
 */

const trimSlash = (base: string) => base.replace(/\/+$/, '');
const PATH = '/api/v3/contents/generations/tasks';

export const doubaoSubmitUrl = (base: string) => `${trimSlash(base)}${PATH}`;
export const doubaoFetchUrl = (base: string, id: string) => `${trimSlash(base)}${PATH}/${encodeURIComponent(id)}`;

const imagesOf = (req: VideoSubmitReq): string[] => (req.images?.length ? req.images : req.image ? [req.image] : []);
/** An inline image as the data URL Ark takes (a URL or a data URL is sent as it is). */
const asImageRef = (s: string) => (/^(https?:|data:)/.test(s) ? s : `data:image/png;base64,${s}`);

interface ContentItem {
  type?: string;
  text?: string;
  [k: string]: unknown;
}

/**
 * The submit body: the images as `image_url` items, the caller's `metadata` (Ark's own fields: resolution,
 * ratio, content, …) over it, the duration when given, and the prompt as the one text item at the end.
 */
export function doubaoRequestBody(req: VideoSubmitReq, upstreamModel: string): Record<string, unknown> {
  const { callback_url: _drop, ...meta } = req.metadata ?? {};
  const images: ContentItem[] = imagesOf(req).map((u) => ({ type: 'image_url', image_url: { url: asImageRef(u) } }));
  const body: Record<string, unknown> = { model: upstreamModel, content: images, ...meta };
  body.model = upstreamModel;
  const seconds = req.duration || Number(req.seconds) || 0;
  if (seconds > 0) body.duration = seconds;
  const content = (Array.isArray(body.content) ? (body.content as ContentItem[]) : []).filter((c) => c.type !== 'text');
  body.content = [...content, { type: 'text', text: req.prompt }];
  return body;
}

interface DoubaoAnswer {
  id?: string;
  status?: string;
  content?: { video_url?: string };
  duration?: number;
  error?: { code?: string; message?: string } | null;
}

/** A refusal's message: Ark's `error.message`. */
export function doubaoMessage(text: string): string | undefined {
  try {
    return (JSON.parse(text) as DoubaoAnswer).error?.message || undefined;
  } catch {
    return undefined;
  }
}

export function parseDoubaoSubmitAnswer(text: string): string {
  const id = (JSON.parse(text) as DoubaoAnswer).id;
  if (!id) throw new Error('doubao answered without a task id');
  return id;
}

/** Ark's statuses (queued, running, succeeded, failed, cancelled) as task statuses, as new-api reads them. */
export function parseDoubaoTask(text: string): RemoteVideoTask {
  const body = JSON.parse(text) as DoubaoAnswer;
  let status: TaskStatus;
  let progress = '';
  switch (body.status) {
    case 'pending':
    case 'queued':
      status = TaskStatus.Queued;
      progress = '10%';
      break;
    case 'succeeded':
      status = TaskStatus.Success;
      break;
    case 'failed':
    case 'cancelled':
      status = TaskStatus.Failure;
      break;
    default:
      status = TaskStatus.InProgress;
      progress = body.status === 'processing' || body.status === 'running' ? '50%' : '30%';
  }
  return {
    status,
    progress: progressOfStatus(status, progress),
    failReason: status === TaskStatus.Failure ? body.error?.message || TASK_FAIL_TEXT.failed : '',
    url: status === TaskStatus.Success ? (body.content?.video_url ?? '') : '',
    seconds: body.duration ? String(body.duration) : '',
  };
}
