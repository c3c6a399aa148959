import { TaskStatus } from '../types.js';

/** The Suno API as new-api serves it (`/suno/submit/{music,lyrics}`, `/suno/fetch`) and speaks it upstream. */

export const SUNO_PLATFORM = 'suno';

export const SunoAction = { Music: 'MUSIC', Lyrics: 'LYRICS' } as const;
export type SunoActionName = (typeof SunoAction)[keyof typeof SunoAction];

/** The ModelPrice key each action is billed under. */
export const SUNO_MODEL_OF_ACTION: Record<SunoActionName, string> = { MUSIC: 'suno_music', LYRICS: 'suno_lyrics' };

/** The model version a music submit without `mv` gets. */
export const DEFAULT_SUNO_MV = 'chirp-v3-0';

/** Music task statuses (a stored empty status is a task still being submitted). */
const KNOWN_STATUSES = new Set<string>(Object.values(TaskStatus).filter((s) => s !== TaskStatus.Modal));

/** The answer code of a successful Suno call. */
export const SUNO_SUCCESS = 'success';

const PROMPT_MAX = 10_000;
const SHORT_MAX = 200;
const TAGS_MAX = 1000;
const FETCH_IDS_MAX = 100;
const ID_MAX = 100;

/** A refusal in Suno's error shape: `{code, message, data}` with the HTTP status. */
export class SunoError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const sunoErrorBody = (e: { code: string; message: string }) => ({
  code: e.code,
  message: e.message,
  data: null,
});
const invalid = (message: string) => new SunoError(400, 'invalid_request', message);

/** new-api's SunoSubmitReq: what a caller may send and the upstream receives. */
export interface SunoSubmitReq {
  gpt_description_prompt?: string;
  prompt?: string;
  mv?: string;
  title?: string;
  tags?: string;
  continue_at?: number;
  task_id?: string;
  continue_clip_id?: string;
  make_instrumental: boolean;
  instrumental: boolean;
  model?: string;
  callBackUrl: string;
  customMode: boolean;
}

/** The action of a submit path segment (`music`, `lyrics`, any case), or undefined. */
export function sunoActionOf(segment: string): SunoActionName | undefined {
  const up = segment.toUpperCase();
  return up === SunoAction.Music || up === SunoAction.Lyrics ? up : undefined;
}

function optString(body: Record<string, unknown>, key: string, max: number): string | undefined {
  const v = body[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalid(`${key} must be a string`);
  if (v.length > max) throw invalid(`${key} is longer than ${max} characters`);
  return v;
}

function optBool(body: Record<string, unknown>, key: string): boolean {
  const v = body[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalid(`${key} must be a boolean`);
  return v;
}

/** Validates a submit body for an action as new-api does (lyrics need a prompt; music gets a default mv). */
export function parseSunoSubmit(action: SunoActionName, body: unknown): SunoSubmitReq {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const continueAt = b.continue_at;
  if (
    continueAt !== undefined &&
    continueAt !== null &&
    (typeof continueAt !== 'number' || !Number.isFinite(continueAt) || continueAt < 0)
  )
    throw invalid('continue_at must be a non-negative number');
  const req: SunoSubmitReq = {
    gpt_description_prompt: optString(b, 'gpt_description_prompt', PROMPT_MAX),
    prompt: optString(b, 'prompt', PROMPT_MAX),
    mv: optString(b, 'mv', SHORT_MAX),
    title: optString(b, 'title', SHORT_MAX),
    tags: optString(b, 'tags', TAGS_MAX),
    continue_at: typeof continueAt === 'number' ? continueAt : undefined,
    task_id: optString(b, 'task_id', ID_MAX),
    continue_clip_id: optString(b, 'continue_clip_id', ID_MAX),
    make_instrumental: optBool(b, 'make_instrumental'),
    instrumental: optBool(b, 'instrumental'),
    model: optString(b, 'model', SHORT_MAX),
    // A caller's callback URL is not forwarded: the gateway polls, and an upstream must not call users' hosts.
    callBackUrl: '',
    customMode: optBool(b, 'customMode'),
  };
  if (action === SunoAction.Lyrics && !req.prompt) throw invalid('prompt_empty');
  if (action === SunoAction.Music) {
    req.mv ??= DEFAULT_SUNO_MV;
    if (!req.prompt && !req.gpt_description_prompt) throw invalid('prompt or gpt_description_prompt is required');
  }
  if (req.continue_clip_id && !req.task_id) throw invalid('task id is empty');
  return req;
}

/** The ids of a `POST /suno/fetch` body (`{ids: [...]}`), validated. */
export function parseSunoFetchIds(body: unknown): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object');
  const ids = (body as { ids?: unknown }).ids;
  if (ids === undefined || ids === null) return [];
  if (!Array.isArray(ids)) throw invalid('ids must be an array');
  if (ids.length > FETCH_IDS_MAX) throw invalid(`at most ${FETCH_IDS_MAX} ids`);
  return ids.map((id) => {
    if (typeof id !== 'string' || !id || id.length > ID_MAX) throw invalid('ids must be non-empty strings');
    return id;
  });
}

const trimSlash = (base: string) => base.replace(/\/+$/, '');

/** The upstream submit URL: new-api forwards to `{base}/suno/submit/{ACTION}`. */
export const sunoSubmitUrl = (base: string, action: SunoActionName) => `${trimSlash(base)}/suno/submit/${action}`;
/** The upstream batch fetch URL (`POST {ids, action}`). */
export const sunoFetchUrl = (base: string) => `${trimSlash(base)}/suno/fetch`;

/** The upstream's task id from a submit answer `{code:'success', data:'<id>'}`, or a SunoError carrying its refusal. */
export function parseSunoSubmitAnswer(status: number, text: string): string {
  let body: { code?: unknown; message?: unknown; data?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new SunoError(
      502,
      'unmarshal_response_body_failed',
      `the upstream answered ${status} with a body that is not JSON`,
    );
  }
  if (status !== 200 || body.code !== SUNO_SUCCESS || typeof body.data !== 'string' || !body.data) {
    const code = typeof body.code === 'string' && body.code ? body.code : 'fail_to_fetch_task';
    const message = typeof body.message === 'string' && body.message ? body.message : `the upstream answered ${status}`;
    throw new SunoError(status >= 400 && status < 500 ? status : 502, code, message);
  }
  return body.data;
}

/** One task as the upstream reports it in a fetch answer. */
export interface SunoRemoteTask {
  taskId: string;
  status: TaskStatus;
  failReason: string;
  progress: string;
  startTime: number;
  finishTime: number;
  /** The upstream's `data` (clips or lyrics), kept as JSON text. */
  data: string;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The progress a status implies when the upstream gives none. */
function progressOf(status: string, given: string): string {
  if (status === TaskStatus.Success || status === TaskStatus.Failure) return '100%';
  return given;
}

/** The tasks of an upstream fetch answer `{code:'success', data:[...]}`; unknown statuses read as UNKNOWN. */
export function parseSunoFetchAnswer(text: string): SunoRemoteTask[] {
  const body = JSON.parse(text) as { code?: unknown; message?: unknown; data?: unknown };
  if (body.code !== SUNO_SUCCESS || !Array.isArray(body.data))
    throw new Error(`suno fetch refused: ${str(body.message) || str(body.code) || 'no data'}`);
  return body.data
    .filter(
      (t): t is Record<string, unknown> =>
        !!t && typeof t === 'object' && typeof (t as { task_id?: unknown }).task_id === 'string',
    )
    .map((t) => {
      const raw = str(t.status).toUpperCase();
      const status = KNOWN_STATUSES.has(raw) ? (raw as TaskStatus) : TaskStatus.Unknown;
      return {
        taskId: str(t.task_id),
        status,
        failReason: str(t.fail_reason),
        progress: progressOf(status, str(t.progress)),
        startTime: num(t.start_time),
        finishTime: num(t.finish_time),
        data: t.data === undefined ? '' : JSON.stringify(t.data),
      };
    });
}

/** The stored fields of a task a caller's fetch shows. */
export interface SunoTaskView {
  /** The public id. */
  task_id: string;
  /** The upstream's id: replaced by the public one wherever the upstream's record repeats it. */
  upstream_task_id?: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: string;
}

/** A value of the upstream's record with the upstream task id (where it is a whole value) as the public id. */
function withPublicId(v: unknown, upstream: string, publicId: string): unknown {
  if (v === upstream) return publicId;
  if (Array.isArray(v)) return v.map((x) => withPublicId(x, upstream, publicId));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withPublicId(x, upstream, publicId)]));
  return v;
}

/** new-api's TaskDto of a stored task: `data` is the upstream's JSON, passed through, the upstream id never shown. */
export function sunoTaskDto(t: SunoTaskView) {
  let data: unknown = null;
  if (t.data) {
    try {
      data = JSON.parse(t.data);
      if (t.upstream_task_id) data = withPublicId(data, t.upstream_task_id, t.task_id);
    } catch {
      data = null;
    }
  }
  return {
    task_id: t.task_id,
    action: t.action,
    status: t.status,
    fail_reason: t.fail_reason,
    submit_time: t.submit_time,
    start_time: t.start_time,
    finish_time: t.finish_time,
    progress: t.progress,
    data,
  };
}

/** A successful Suno answer. */
export const sunoAnswer = (data: unknown) => ({ code: SUNO_SUCCESS, message: '', data });
