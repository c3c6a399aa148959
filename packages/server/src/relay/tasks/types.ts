import type { TaskFailReason } from '@tollway/shared';
import type { CachedChannel } from '../../core/routing/channel-cache.js';

/**
 * The contract between the task engine (service, poller) and the task platforms (Midjourney, Suno, video
 * vendors). A platform only speaks its vendor's wire format; the engine prices, reserves, charges, stores the
 * task row, polls and refunds. Types only: the engine and the platforms import this file, it imports neither.
 */

/** Normalized task statuses (new-api's, Midjourney's MODAL included), stored in the row's `status`. */
export const TaskStatus = {
  NotStart: 'NOT_START',
  Submitted: 'SUBMITTED',
  Queued: 'QUEUED',
  InProgress: 'IN_PROGRESS',
  Success: 'SUCCESS',
  Failure: 'FAILURE',
  Unknown: 'UNKNOWN',
  /** Midjourney waits for the user's modal input (region, prompt); still polled. */
  Modal: 'MODAL',
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/** A task in one of these never changes again (and is not polled); FAILURE is refunded once on the way in. */
export const FINAL_TASK_STATUSES: ReadonlySet<string> = new Set<string>([TaskStatus.Success, TaskStatus.Failure]);
export const isFinalTaskStatus = (s: string): boolean => FINAL_TASK_STATUSES.has(s);

/** Which table holds a platform's rows: Midjourney in `midjourneys`, every other platform in `tasks`. */
export type TaskTable = 'midjourneys' | 'tasks';

/** The upstream a call goes to: the channel chosen by the engine, with one of its keys and its base URL. */
export interface TaskUpstream {
  channel: CachedChannel;
  key: string;
  /** The channel's base URL without a trailing slash (the channel type's default when the channel has none). */
  baseUrl: string;
  signal?: AbortSignal;
}

/** What a platform is asked to submit: the action and the body its route already validated. */
export interface TaskSubmitRequest extends TaskUpstream {
  /** Upper-case action, e.g. IMAGINE, UPSCALE, MUSIC, LYRICS, generate. */
  action: string;
  /** Model after the channel's mapping (video platforms); the price name for the others. */
  model: string;
  body: Record<string, unknown>;
}

/** The upstream accepted: its task id and what the row keeps. */
export interface TaskAccepted {
  ok: true;
  upstreamTaskId: string;
  /** Midjourney submit code (1 submitted, 21 waiting, 22 duplicate); 1 when absent. */
  code?: number;
  description?: string;
  /** Initial status; SUBMITTED when absent. */
  status?: TaskStatus;
  /** Stored in the row's properties (Midjourney) or data (tasks) for later fetches. */
  properties?: Record<string, unknown>;
  /** Kept server-side only (private_data), never shown to the caller: e.g. a vendor's internal ids. */
  privateData?: Record<string, unknown>;
}

/** The upstream (or the platform before calling it) refused: nothing is charged, the reservation is released. */
export interface TaskRefused {
  ok: false;
  /** HTTP status for the caller (4xx for bad input, the upstream's status or 502 for upstream failures). */
  httpStatus: number;
  /** The vendor's code (Midjourney's numeric code, a string code for the others). */
  code: number | string;
  message: string;
  /** The upstream says this channel's account cannot serve (Midjourney code 3): a candidate for auto-disable. */
  unavailable?: { channel: CachedChannel; keyIndex: number };
}

export type TaskSubmitResult = TaskAccepted | TaskRefused;

/**
 * The gateway's own words for why a task failed (the row's fail_reason, the refund log's English text), by the
 * code the refund log's event carries so the console words it in the viewer's language.
 */
export const TASK_FAIL_TEXT = {
  timeout: 'task timed out',
  interrupted: 'the submission was interrupted',
  resent: 'refund sent again after an interruption',
  failed: 'task failed',
} as const satisfies Record<TaskFailReason, string>;

/** One task's state as the upstream reports it in a poll or a notify. */
export interface TaskState {
  upstreamTaskId: string;
  status: TaskStatus;
  /** "0%" … "100%". */
  progress?: string;
  failReason?: string;
  /** Epoch seconds, when the upstream says. */
  startTime?: number;
  finishTime?: number;
  /** Midjourney: image_url, prompt_en, description, buttons (JSON), properties (JSON), video_url(s). */
  imageUrl?: string;
  promptEn?: string;
  description?: string;
  buttons?: unknown[];
  properties?: Record<string, unknown>;
  /** Video or music result URLs (the first is the row's result_url / video_url). */
  urls?: string[];
  /** The upstream's record as the row's `data` (tasks table), returned to callers by the fetch routes. */
  data?: unknown;
}

/** A task platform: one per vendor API. Registered in platforms.ts. */
export interface TaskPlatform {
  /** The `platform` column (tasks) / route family: 'mj', 'suno', 'kling', 'video', … */
  name: string;
  table: TaskTable;
  /** Channel types (ChannelType values) this platform serves. */
  channelTypes: readonly number[];
  /** Largest batch fetchTasks accepts (Midjourney's list-by-condition, Suno's fetch ids); default 1. */
  batchSize?: number;
  submit(req: TaskSubmitRequest): Promise<TaskSubmitResult>;
  /**
   * States of these upstream task ids on one channel. Ids missing from the answer stay as they are; a thrown
   * error skips the batch until the next poll.
   */
  fetchTasks(upstream: TaskUpstream, upstreamTaskIds: readonly string[]): Promise<TaskState[]>;
}
