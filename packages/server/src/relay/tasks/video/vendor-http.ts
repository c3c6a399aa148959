import type { TaskState, TaskSubmitResult } from '../types.js';
import { taskRequest, type TaskHttpOptions } from '../upstream-http.js';
import type { RemoteVideoTask } from './wire.js';

/** The calls every video platform makes to its upstream, and how their answers become results and states. */

/** Upstream status for a call that never got an answer, or answered what cannot be read. */
export const BAD_GATEWAY = 502;
/** Polls run per task (one call each); this many in one batch. */
export const VIDEO_FETCH_BATCH = 20;
/** Most of an upstream's text kept in a refusal's message. */
const MESSAGE_MAX = 500;

export type Sent = { status: number; text: string } | { error: string };

/** One upstream call; a call that got no answer is `{error}`, never a throw. */
export async function send(url: string, o: TaskHttpOptions): Promise<Sent> {
  try {
    const res = await taskRequest(url, o);
    return { status: res.status, text: res.text };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** The caller sees an upstream 4xx as it is (a bad prompt, a refused image); anything else is a bad gateway. */
export function submitRefused(sent: Sent, message?: string): TaskSubmitResult {
  if ('error' in sent)
    return {
      ok: false,
      httpStatus: BAD_GATEWAY,
      code: 'do_request_failed',
      message: `the upstream could not be reached: ${sent.error}`,
    };
  const status = sent.status >= 400 && sent.status < 500 ? sent.status : BAD_GATEWAY;
  return {
    ok: false,
    httpStatus: status,
    code: 'fail_to_fetch_task',
    message: message ?? (sent.text.slice(0, MESSAGE_MAX) || `the upstream answered ${sent.status}`),
  };
}

/** An answer the platform could not read as accepted: a bad gateway with the reason. */
export const invalidAnswer = (err: unknown): TaskSubmitResult => ({
  ok: false,
  httpStatus: BAD_GATEWAY,
  code: 'invalid_response',
  message: (err as Error).message,
});

/** The first non-empty string among an answer's message fields (`message`, `error.message`, …), if JSON. */
export function answerMessage(text: string, read: (body: Record<string, unknown>) => unknown): string | undefined {
  try {
    const v = read(JSON.parse(text) as Record<string, unknown>);
    return typeof v === 'string' && v ? v.slice(0, MESSAGE_MAX) : undefined;
  } catch {
    return undefined;
  }
}

export const toState = (upstreamTaskId: string, t: RemoteVideoTask): TaskState => ({
  upstreamTaskId,
  status: t.status,
  progress: t.progress,
  failReason: t.failReason || undefined,
  urls: t.url ? [t.url] : undefined,
  data: { status: t.status, url: t.url, seconds: t.seconds },
});

/** Polls each id with one call; a task whose poll fails is skipped until the next round. */
export async function pollEach(
  ids: readonly string[],
  poll: (id: string) => Promise<TaskState | undefined>,
): Promise<TaskState[]> {
  const out: TaskState[] = [];
  for (const id of ids) {
    const state = await poll(id).catch(() => undefined);
    if (state) out.push(state);
  }
  return out;
}
