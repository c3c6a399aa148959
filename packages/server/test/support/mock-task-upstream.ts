import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { registerTaskPlatform } from '../../src/relay/tasks/platforms.js';
import {
  TaskStatus,
  type TaskPlatform,
  type TaskState,
  type TaskStatus as Status,
} from '../../src/relay/tasks/types.js';

/**
 * A small asynchronous-task upstream: POST /submit {prompt} answers {id} (a prompt starting with "refuse"
 * gets 400 {code, message}); POST /fetch {ids} answers each task's state, advancing it one step per fetch:
 * SUBMITTED → IN_PROGRESS → SUCCESS with a result URL; "fail…" prompts end in FAILURE, "never…" stay in
 * IN_PROGRESS. Counts fetches per task.
 */
export interface MockTaskUpstream {
  url: string;
  fetches: Map<string, number>;
  /** The prompt of every submit received, refused ones included, in order. */
  submitted: string[];
  /** Tasks by id: their prompt and how many fetches they have seen. */
  tasks: Map<string, { prompt: string; steps: number }>;
  close(): Promise<void>;
}

interface UpstreamTask {
  id: string;
  status: Status;
  progress: string;
  fail_reason?: string;
  url?: string;
}

const STEPS_TO_SUCCESS = 2;

function stateOf(id: string, prompt: string, steps: number): UpstreamTask {
  if (steps === 0) return { id, status: TaskStatus.Submitted, progress: '0%' };
  if (prompt.startsWith('fail'))
    return { id, status: TaskStatus.Failure, progress: '100%', fail_reason: 'upstream refused to draw' };
  if (prompt.startsWith('never') || steps < STEPS_TO_SUCCESS)
    return { id, status: TaskStatus.InProgress, progress: '50%' };
  return { id, status: TaskStatus.Success, progress: '100%', url: `https://cdn.example/${id}.png` };
}

export async function startMockTaskUpstream(): Promise<MockTaskUpstream> {
  const tasks = new Map<string, { prompt: string; steps: number }>();
  const fetches = new Map<string, number>();
  const submitted: string[] = [];
  let seq = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== 'Bearer task-key')
        return send(401, { code: 'unauthorized', message: 'bad key' });
      const body = JSON.parse(raw || '{}') as { prompt?: string; ids?: string[] };
      if (req.url === '/submit') {
        const prompt = String(body.prompt ?? '');
        submitted.push(prompt);
        if (prompt.startsWith('refuse')) return send(400, { code: 'bad_prompt', message: 'prompt refused' });
        const id = `up-${++seq}`;
        tasks.set(id, { prompt, steps: 0 });
        return send(200, { id });
      }
      if (req.url === '/fetch') {
        const out: UpstreamTask[] = [];
        for (const id of body.ids ?? []) {
          const t = tasks.get(id);
          if (!t) continue;
          fetches.set(id, (fetches.get(id) ?? 0) + 1);
          t.steps++;
          out.push(stateOf(id, t.prompt, t.steps));
        }
        return send(200, out);
      }
      send(404, { code: 'not_found', message: req.url });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, fetches, submitted, tasks, close: () => new Promise((r) => server.close(() => r())) };
}

/** A task platform speaking the mock's wire format, registered until the returned function is called. */
export function registerFakeTaskPlatform(
  name: string,
  channelType: number,
  table: TaskPlatform['table'] = 'tasks',
): () => void {
  const post = async (url: string, key: string, body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as unknown };
  };
  return registerTaskPlatform({
    name,
    table,
    channelTypes: [channelType],
    batchSize: 5,
    async submit(req) {
      const { status, json } = await post(`${req.baseUrl}/submit`, req.key, { prompt: req.body.prompt });
      const j = json as { id?: string; code?: string; message?: string };
      if (status !== 200 || !j.id)
        return { ok: false, httpStatus: status, code: j.code ?? 'error', message: j.message ?? 'refused' };
      return { ok: true, upstreamTaskId: j.id, privateData: { upstream_prompt: req.body.prompt } };
    },
    async fetchTasks(up, ids) {
      const { json } = await post(`${up.baseUrl}/fetch`, up.key, { ids });
      return (json as UpstreamTask[]).map((t): TaskState => ({
        upstreamTaskId: t.id,
        status: t.status,
        progress: t.progress,
        failReason: t.fail_reason,
        urls: t.url ? [t.url] : undefined,
        imageUrl: t.url,
        data: t,
      }));
    },
  });
}
