// A mock midjourney-proxy: its submit answers, task objects, list-by-condition, image-seed, images and notify
// callbacks. Tasks move SUBMITTED → IN_PROGRESS → SUCCESS, one step per fetch; prompts choose other fates:
// "fail" ends in FAILURE, "never" stays IN_PROGRESS, "banned" is refused (code 24), "queued" answers code 22,
// "no-account" answers code 3 (no account instance). VIDEO tasks end with videoUrl and videoUrls.
import http from 'node:http';
import { request } from 'undici';
import { listenLocally } from './local-server.js';

export interface MockMjTask {
  id: string;
  action: string;
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
  buttons: { customId: string; emoji: string; label: string; type: number; style: number }[];
  properties: Record<string, unknown>;
  videoUrl?: string;
  videoUrls?: { url: string }[];
}

export interface MockMjRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface MockMidjourney {
  url: string;
  /** The mj-api-secret the mock requires. */
  secret: string;
  requests: MockMjRequest[];
  tasks: Map<string, MockMjTask>;
  /** notifyHook posts the mock made (url and task). */
  notified: { url: string; task: MockMjTask; status: number }[];
  /** Moves one task one step (as a fetch would) and notifies its hook. */
  advance(id: string): Promise<MockMjTask | undefined>;
  close(): Promise<void>;
}

/** A 1×1 PNG. */
export const MOCK_MJ_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mP8/x8AAwMCAO+ip1sAAAAASUVORK5CYII=',
  'base64',
);

const SUBMIT_ACTIONS: Record<string, string> = {
  '/mj/submit/imagine': 'IMAGINE',
  '/mj/submit/describe': 'DESCRIBE',
  '/mj/submit/blend': 'BLEND',
  '/mj/submit/shorten': 'SHORTEN',
  '/mj/submit/modal': 'MODAL',
  '/mj/submit/upload-discord-images': 'UPLOAD',
  '/mj/insight-face/swap': 'SWAP_FACE',
  '/mj/submit/edits': 'EDITS',
  '/mj/submit/video': 'VIDEO',
};

const buttonsOf = (id: string) => [
  ...[1, 2, 3, 4].map((i) => ({
    customId: `MJ::JOB::upsample::${i}::${id}`,
    emoji: '',
    label: `U${i}`,
    type: 2,
    style: 2,
  })),
  ...[1, 2, 3, 4].map((i) => ({
    customId: `MJ::JOB::variation::${i}::${id}`,
    emoji: '',
    label: `V${i}`,
    type: 2,
    style: 2,
  })),
  { customId: `MJ::JOB::reroll::0::${id}::SOLO`, emoji: '🔄', label: '', type: 2, style: 2 },
];

export async function startMockMidjourney(opts: { secret?: string } = {}): Promise<MockMidjourney> {
  const secret = opts.secret ?? 'mj-secret';
  const tasks = new Map<string, MockMjTask>();
  const hooks = new Map<string, string>();
  const requests: MockMjRequest[] = [];
  const notified: MockMidjourney['notified'] = [];
  let seq = 1_700_000_000_000;
  let base = '';

  const notify = async (t: MockMjTask) => {
    const hook = hooks.get(t.id);
    if (!hook) return;
    try {
      const res = await request(hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(t),
      });
      await res.body.dump();
      notified.push({ url: hook, task: { ...t }, status: res.statusCode });
    } catch {
      notified.push({ url: hook, task: { ...t }, status: 0 });
    }
  };

  const step = (t: MockMjTask): boolean => {
    if (t.status === 'SUCCESS' || t.status === 'FAILURE') return false;
    if (t.status === 'SUBMITTED' || t.status === 'NOT_START') {
      Object.assign(t, { status: 'IN_PROGRESS', progress: '50%', startTime: Date.now() });
      return true;
    }
    if (t.prompt.includes('never')) return false;
    if (t.prompt.includes('fail'))
      Object.assign(t, {
        status: 'FAILURE',
        progress: '100%',
        failReason: 'Mock: the job was refused',
        finishTime: Date.now(),
      });
    else if (t.action === 'VIDEO') {
      const videos = [1, 2].map((i) => ({ url: `${base}/videos/${t.id}-${i}.mp4` }));
      Object.assign(t, {
        status: 'SUCCESS',
        progress: '100%',
        finishTime: Date.now(),
        videoUrl: videos[0]!.url,
        videoUrls: videos,
      });
    } else
      Object.assign(t, {
        status: 'SUCCESS',
        progress: '100%',
        imageUrl: `${base}/images/${t.id}.png`,
        finishTime: Date.now(),
        buttons: buttonsOf(t.id),
      });
    return true;
  };

  const advance = async (id: string) => {
    const t = tasks.get(id);
    if (t && step(t)) await notify(t);
    return t;
  };

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', base);
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return send(res, 400, { code: 4, description: 'bad json' });
    }
    requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body });
    const image = /^\/images\/([^/]+)\.png$/.exec(url.pathname);
    if (image)
      return void res
        .writeHead(200, { 'content-type': 'image/png', 'content-length': MOCK_MJ_PNG.length })
        .end(MOCK_MJ_PNG);
    if (req.headers['mj-api-secret'] !== secret) return send(res, 401, { code: 4, description: 'unauthorized' });
    const fetch = /^\/mj\/task\/([^/]+)\/fetch$/.exec(url.pathname);
    if (fetch) return send(res, 200, (await advance(fetch[1]!)) ?? null);
    const seed = /^\/mj\/task\/([^/]+)\/image-seed$/.exec(url.pathname);
    if (seed)
      return send(
        res,
        200,
        tasks.has(seed[1]!)
          ? { code: 1, description: 'success', result: '1234567890' }
          : { code: 4, description: 'task_not_found' },
      );
    if (url.pathname === '/mj/task/list-by-condition') {
      const ids = Array.isArray(body.ids) ? (body.ids as string[]) : [];
      const out = [];
      for (const id of ids) {
        const t = await advance(id);
        if (t) out.push(t);
      }
      return send(res, 200, out);
    }
    const prompt = typeof body.prompt === 'string' ? body.prompt : '';
    let action = SUBMIT_ACTIONS[url.pathname];
    let origin: MockMjTask | undefined;
    if (url.pathname === '/mj/submit/simple-change') {
      const [taskId = '', code = ''] = String(body.content ?? '').split(' ');
      Object.assign(body, {
        taskId,
        action: code[0]?.toLowerCase() === 'u' ? 'UPSCALE' : code[0]?.toLowerCase() === 'v' ? 'VARIATION' : 'REROLL',
      });
    }
    if (url.pathname === '/mj/submit/video' && body.taskId !== undefined) {
      origin = tasks.get(String(body.taskId));
      if (!origin) return send(res, 200, { code: 4, description: 'task_not_found', result: null });
    }
    if (['/mj/submit/action', '/mj/submit/change', '/mj/submit/simple-change'].includes(url.pathname)) {
      origin = tasks.get(String(body.taskId ?? ''));
      if (!origin) return send(res, 200, { code: 4, description: 'task_not_found', result: null });
      const custom = String(body.customId ?? '');
      action =
        url.pathname !== '/mj/submit/action'
          ? String(body.action)
          : custom.includes('upsample')
            ? 'UPSCALE'
            : custom.includes('variation')
              ? 'VARIATION'
              : 'REROLL';
    }
    if (!action) return send(res, 404, { code: 4, description: 'not found' });
    if (prompt.includes('no-account'))
      return send(res, 200, { code: 3, description: 'No available account instance', result: null, properties: null });
    if (prompt.includes('banned'))
      return send(res, 200, {
        code: 24,
        description: 'may contain sensitive words',
        result: null,
        properties: { promptEn: prompt, bannedWord: 'banned' },
      });
    const id = String(seq++);
    const task: MockMjTask = {
      id,
      action,
      prompt: origin?.prompt ?? prompt,
      promptEn: origin?.prompt ?? prompt,
      description: `/${action.toLowerCase()} ${prompt}`.trim(),
      state: typeof body.state === 'string' ? body.state : '',
      submitTime: Date.now(),
      startTime: 0,
      finishTime: 0,
      imageUrl: '',
      status: 'SUBMITTED',
      progress: '0%',
      failReason: '',
      buttons: [],
      properties: { discordInstanceId: '1118138338562560102' },
    };
    tasks.set(id, task);
    if (typeof body.notifyHook === 'string' && body.notifyHook) hooks.set(id, body.notifyHook);
    if (prompt.includes('queued'))
      return send(res, 200, {
        code: 22,
        description: 'queued, 1 task ahead',
        result: id,
        properties: { numberOfQueues: 1 },
      });
    return send(res, 200, {
      code: 1,
      description: 'Submit success',
      result: id,
      properties: { discordInstanceId: '1118138338562560102' },
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on(
      'end',
      () =>
        void handle(req, res, Buffer.concat(chunks).toString('utf8')).catch(() =>
          send(res, 500, { code: 5, description: 'mock error' }),
        ),
    );
  });
  const local = await listenLocally(server);
  base = local.url;
  return { url: local.url, secret, requests, tasks, notified, advance, close: local.close };
}
