// The midjourney-proxy wire format as new-api serves it: submit answers, task objects, codes and actions.
import { MAX_BODY_DEPTH, nestedTooDeep } from '../../entry/validate.js';

/** Submit answer codes: 1 submitted, 21 already exists, 22 waiting in the queue; others are not submitted. */
export const MjCode = {
  Submitted: 1,
  NoAccount: 3,
  RequestError: 4,
  Unknown: 5,
  Exists: 21,
  Queued: 22,
  QueueFull: 23,
  Banned: 24,
} as const;

export const MjStatus = {
  NotStart: 'NOT_START',
  Submitted: 'SUBMITTED',
  InProgress: 'IN_PROGRESS',
  Success: 'SUCCESS',
  Failure: 'FAILURE',
  Modal: 'MODAL',
} as const;

/** A task in one of these states changes no more. */
export const MJ_FINAL_STATUSES: readonly string[] = [MjStatus.Success, MjStatus.Failure];

export const MjAction = {
  Imagine: 'IMAGINE',
  Describe: 'DESCRIBE',
  Blend: 'BLEND',
  Upscale: 'UPSCALE',
  Variation: 'VARIATION',
  ReRoll: 'REROLL',
  InPaint: 'INPAINT',
  Modal: 'MODAL',
  Zoom: 'ZOOM',
  CustomZoom: 'CUSTOM_ZOOM',
  Shorten: 'SHORTEN',
  HighVariation: 'HIGH_VARIATION',
  LowVariation: 'LOW_VARIATION',
  Pan: 'PAN',
  SwapFace: 'SWAP_FACE',
  Upload: 'UPLOAD',
  /** An image (an earlier task's, or one given) animated into a short video. */
  Video: 'VIDEO',
  /** An image edited by a prompt. */
  Edits: 'EDITS',
} as const;
export type MjActionName = (typeof MjAction)[keyof typeof MjAction];

/** A submit body (every route's fields; each route reads its own). */
export interface MjSubmitBody {
  prompt?: string;
  base64Array?: string[];
  base64?: string;
  notifyHook?: string;
  state?: string;
  action?: string;
  index?: number;
  taskId?: string;
  content?: string;
  customId?: string;
  maskBase64?: string;
  botType?: string;
  accountFilter?: unknown;
  sourceBase64?: string;
  targetBase64?: string;
  dimensions?: string;
  /** VIDEO and EDITS: the image (base64 data URL or URL) when no earlier task is named. */
  image?: string;
  motion?: string;
  [key: string]: unknown;
}

/** The answer of every submit route. */
export interface MjSubmitAnswer {
  code: number;
  description: string;
  result: string;
  properties: Record<string, unknown> | null;
}

export interface MjButton {
  customId: string;
  emoji: string;
  label: string;
  type: number;
  style: number;
}

/** A task as midjourney-proxy shows it (fetch, list-by-condition, notify). */
export interface MjTaskView {
  id: string;
  action: string;
  customId?: string;
  botType?: string;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  status: string;
  progress: string;
  failReason: string;
  buttons?: MjButton[];
  properties?: Record<string, unknown>;
  /** VIDEO tasks: the first video and every video. */
  videoUrl?: string;
  videoUrls?: { url: string }[];
}

/**
 * A refusal in midjourney-proxy's shape, answered with an HTTP status (4xx for the caller's input). `type` is
 * new-api's: 'upstream_error' for every refusal but the quota's, which is 'insufficient_quota' (mjQuotaRefusal).
 */
export class MjError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly description: string,
    readonly type = 'upstream_error',
  ) {
    super(description);
  }

  get body(): MjSubmitAnswer & { type: string } {
    return { code: this.code, description: this.description, result: '', properties: null, type: this.type };
  }
}

/** The quota error type of the relay (RelayError.type), kept as the MJ body's type. */
export const MJ_QUOTA_TYPE = 'insufficient_quota';
/** midjourney-proxy's (and new-api's) description of a submit the balance cannot pay for. */
export const MJ_QUOTA_DESCRIPTION = 'quota_not_enough';

/** A user or token without quota for the submit: code 4, description quota_not_enough, type insufficient_quota. */
export const mjQuotaRefusal = (status: number): MjError =>
  new MjError(status, MjCode.RequestError, MJ_QUOTA_DESCRIPTION, MJ_QUOTA_TYPE);

const HTTP_BAD_REQUEST = 400;
/** The caller's input is wrong: code 4 with HTTP 400. */
export const mjBadRequest = (description: string): MjError =>
  new MjError(HTTP_BAD_REQUEST, MjCode.RequestError, description);

/**
 * A JSON object body, or a 400 in midjourney-proxy's shape. Fields the gateway does not read go upstream as sent,
 * so a body may nest no deeper than any relay body.
 */
export function parseMjBody(raw: unknown): MjSubmitBody {
  let body: unknown = raw;
  if (Buffer.isBuffer(raw)) {
    if (raw.length === 0) throw mjBadRequest('bind_request_body_failed');
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw mjBadRequest('bind_request_body_failed');
    }
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw mjBadRequest('bind_request_body_failed');
  if (nestedTooDeep(body)) throw mjBadRequest(`body_nested_deeper_than_${MAX_BODY_DEPTH}_levels`);
  return body as MjSubmitBody;
}

/** The path as the upstream serves it: a mode prefix (/mj-fast/mj/…) dropped. */
export function upstreamMjPath(path: string): string {
  const at = path.indexOf('/mj/');
  return at > 0 ? path.slice(at) : path;
}

/** The mode of a prefixed path (`/mj-fast/mj/…` → fast); undefined without one. */
export function mjModeOf(path: string): string | undefined {
  const m = /^\/mj-(fast|relax|turbo)\/mj\//.exec(path);
  return m?.[1];
}
