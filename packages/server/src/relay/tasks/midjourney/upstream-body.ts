// What the Mj* settings change in the body sent upstream and in the tasks shown to callers.
import type { OptionReader } from '../../../lib/option-reader.js';
import type { MjButton, MjSubmitBody, MjTaskView } from './wire.js';
import { MjStatus } from './wire.js';

const MODE_FLAGS = /--(fast|relax|turbo)\b/g;

/**
 * The body forwarded upstream: accountFilter only with MjAccountFilterEnabled, the caller's notifyHook only with
 * MjNotifyEnabled, and --fast/--relax/--turbo taken out of the prompt with MjModeClearEnabled.
 */
export function upstreamBody(body: MjSubmitBody, options: OptionReader): MjSubmitBody {
  const out: MjSubmitBody = { ...body };
  if (!options.bool('MjAccountFilterEnabled')) delete out.accountFilter;
  if (!options.bool('MjNotifyEnabled')) delete out.notifyHook;
  if (options.bool('MjModeClearEnabled') && typeof out.prompt === 'string')
    out.prompt = out.prompt.replace(MODE_FLAGS, '');
  return out;
}

/** A stored drawing task (the midjourneys row and the columns the task service adds). */
export interface MjTaskRow {
  mj_id: string;
  action: string;
  prompt: string;
  prompt_en: string;
  description: string;
  state?: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  progress: string;
  fail_reason: string;
  buttons?: string;
  properties?: string;
  /** A VIDEO task's result: the first video and all of them (JSON). */
  video_url?: string;
  video_urls?: string;
}

const MS_PER_SECOND = 1000;
/** Rows keep epoch seconds; midjourney-proxy shows epoch milliseconds. */
const toMs = (seconds: number): number => Number(seconds) * MS_PER_SECOND;

const parsed = <T>(text: string | undefined): T | undefined => {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
};

/**
 * A stored task as midjourney-proxy shows it. With MjForwardUrlEnabled the image is served through this
 * gateway's /mj/image/{id} (a changing query until it is final, so clients do not cache a partial image).
 */
export function mjTaskView(row: MjTaskRow, options: OptionReader, now = Date.now()): MjTaskView {
  let imageUrl = row.image_url;
  if (imageUrl && options.bool('MjForwardUrlEnabled')) {
    const server = options.get('ServerAddress').replace(/\/+$/, '');
    imageUrl = `${server}/mj/image/${encodeURIComponent(row.mj_id)}`;
    if (row.status !== MjStatus.Success) imageUrl += `?rand=${now}`;
  }
  const view: MjTaskView = {
    id: row.mj_id,
    action: row.action,
    prompt: row.prompt,
    promptEn: row.prompt_en,
    description: row.description,
    state: row.state ?? '',
    submitTime: toMs(row.submit_time),
    startTime: toMs(row.start_time),
    finishTime: toMs(row.finish_time),
    imageUrl,
    status: row.status,
    progress: row.progress,
    failReason: row.fail_reason,
  };
  const buttons = parsed<MjButton[]>(row.buttons);
  if (Array.isArray(buttons)) view.buttons = buttons;
  const properties = parsed<Record<string, unknown>>(row.properties);
  if (properties && typeof properties === 'object') view.properties = properties;
  if (row.video_url) view.videoUrl = row.video_url;
  const videos = parsed<unknown[]>(row.video_urls);
  if (Array.isArray(videos) && videos.length)
    view.videoUrls = videos.filter((u): u is string => typeof u === 'string').map((url) => ({ url }));
  return view;
}

/** The fields of an upstream task object (fetch or notify) that update the stored row. */
export function rowUpdateOf(task: Partial<MjTaskView>): Partial<MjTaskRow> {
  const out: Partial<MjTaskRow> = {};
  if (typeof task.status === 'string') out.status = task.status;
  if (typeof task.progress === 'string') out.progress = task.progress;
  if (typeof task.imageUrl === 'string') out.image_url = task.imageUrl;
  if (typeof task.failReason === 'string') out.fail_reason = task.failReason;
  if (typeof task.promptEn === 'string') out.prompt_en = task.promptEn;
  if (typeof task.description === 'string') out.description = task.description;
  if (typeof task.state === 'string') out.state = task.state;
  if (typeof task.startTime === 'number') out.start_time = task.startTime;
  if (typeof task.finishTime === 'number') out.finish_time = task.finishTime;
  if (Array.isArray(task.buttons)) out.buttons = JSON.stringify(task.buttons);
  if (task.properties && typeof task.properties === 'object') out.properties = JSON.stringify(task.properties);
  return out;
}
