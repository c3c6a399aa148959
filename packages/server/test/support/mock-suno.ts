import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Suno API deployment (github.com/Suno-API/Suno-API, what new-api's SunoAPI channel speaks):
 * `POST /suno/submit/{MUSIC|LYRICS}` → `{code:'success', data:'<task id>'}`, `POST /suno/fetch {ids}` → the tasks.
 * Each fetch that names a task moves it one step: SUBMITTED → QUEUED → IN_PROGRESS → SUCCESS. A prompt with
 * `fail` ends in FAILURE, `never` stays IN_PROGRESS, `refuse` is refused at submit. A lyrics result repeats the
 * task id (`data.id`); a continuation's `task_id` must name a task of this deployment.
 */

export const MOCK_SUNO_KEY = 'suno-mock-key';

interface MockSunoTask {
  id: string;
  /** Suno names clips and their files on its own, apart from the task id. */
  clipBase: string;
  action: 'MUSIC' | 'LYRICS';
  prompt: string;
  polls: number;
  submitTime: number;
}

export interface MockSuno {
  url: string;
  /** Bodies of accepted and refused submits, in order. */
  submits: { action: string; body: Record<string, unknown> }[];
  /** Number of fetch calls, and the ids each asked for. */
  fetches: string[][];
  tasks: Map<string, MockSunoTask>;
  close(): Promise<void>;
}

const STEPS = ['SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS'] as const;
const PROGRESS: Record<string, string> = {
  SUBMITTED: '0%',
  QUEUED: '0%',
  IN_PROGRESS: '50%',
  SUCCESS: '100%',
  FAILURE: '100%',
};
const FAIL_AT_POLL = 3;

const json = (res: http.ServerResponse, body: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const now = () => Math.floor(Date.now() / 1000);

function statusAfter(t: MockSunoTask): string {
  if (t.prompt.includes('never')) return t.polls >= 3 ? 'IN_PROGRESS' : STEPS[Math.min(t.polls - 1, 2)]!;
  if (t.prompt.includes('fail') && t.polls >= FAIL_AT_POLL) return 'FAILURE';
  return STEPS[Math.min(t.polls - 1, STEPS.length - 1)]!;
}

function resultOf(t: MockSunoTask, status: string): unknown {
  if (status !== 'SUCCESS') return [];
  if (t.action === 'LYRICS')
    return { id: t.id, status: 'complete', title: 'Mock lyrics', text: `[Verse]\n${t.prompt}` };
  return [1, 2].map((n) => ({
    id: `${t.clipBase}-clip${n}`,
    audio_url: `https://cdn.mock-suno.test/${t.clipBase}-${n}.mp3`,
    image_url: `https://cdn.mock-suno.test/${t.clipBase}-${n}.jpeg`,
    video_url: '',
    status: 'complete',
    title: 'Mock song',
    metadata: { tags: 'pop', prompt: t.prompt, duration: 120 },
  }));
}

function taskView(t: MockSunoTask) {
  const status = statusAfter(t);
  const done = status === 'SUCCESS' || status === 'FAILURE';
  return {
    task_id: t.id,
    action: t.action,
    status,
    fail_reason: status === 'FAILURE' ? 'mock: the song could not be made' : '',
    submit_time: t.submitTime,
    start_time: t.polls >= 2 ? t.submitTime : 0,
    finish_time: done ? now() : 0,
    progress: PROGRESS[status],
    data: resultOf(t, status),
  };
}

export async function startMockSuno(): Promise<MockSuno> {
  const mock: MockSuno = { url: '', submits: [], fetches: [], tasks: new Map(), close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${MOCK_SUNO_KEY}`)
        return json(res, { code: 'unauthorized', message: 'invalid key', data: null }, 401);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        return json(res, { code: 'invalid_request', message: 'bad json', data: null }, 400);
      }
      const path = (req.url ?? '').split('?')[0]!;
      const submit = /^\/suno\/submit\/(music|lyrics)$/i.exec(path);
      if (req.method === 'POST' && submit) {
        const action = submit[1]!.toUpperCase() as 'MUSIC' | 'LYRICS';
        mock.submits.push({ action, body });
        const prompt = String(body.prompt ?? body.gpt_description_prompt ?? '');
        if (body.task_id !== undefined && !mock.tasks.has(String(body.task_id)))
          return json(res, { code: 'error', message: 'mock: no such task to continue', data: null });
        if (prompt.includes('refuse'))
          return json(res, { code: 'error', message: 'mock: prompt rejected by suno', data: null });
        const id = crypto.randomUUID();
        mock.tasks.set(id, { id, clipBase: crypto.randomUUID(), action, prompt, polls: 0, submitTime: now() });
        return json(res, { code: 'success', message: '', data: id });
      }
      if (req.method === 'POST' && path === '/suno/fetch') {
        const ids = Array.isArray(body.ids) ? (body.ids as string[]) : [];
        mock.fetches.push(ids);
        const out = ids.flatMap((id) => {
          const t = mock.tasks.get(id);
          if (!t) return [];
          t.polls++;
          return [taskView(t)];
        });
        return json(res, { code: 'success', message: '', data: out });
      }
      json(res, { code: 'not_found', message: `no route ${req.method} ${path}`, data: null }, 404);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return mock;
}
