import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A video upstream speaking two wire formats on one port:
 * - Kling's native API: `POST /v1/videos/{text2video,image2video}`, `GET /v1/videos/{kind}/{id}`, every call with a
 *   JWT (HS256, iss = access key, nbf/exp) whose signature is checked against the secret key;
 * - OpenAI's videos API (Sora): `POST /v1/videos` (JSON, or multipart with an `input_reference` file),
 *   `POST /v1/videos/{id}/remix`, `GET /v1/videos/{id}`, `GET /v1/videos/{id}/content`.
 * Each fetch moves a task one step (submitted/queued → processing → succeed/completed). A prompt with `fail` ends in
 * failure, `never` never finishes, `refuse` is refused at submit.
 */

export const MOCK_KLING_AK = 'ak-mock-kling';
export const MOCK_KLING_SK = 'sk-mock-kling-secret';
/** The channel key of a Kling channel for this mock. */
export const MOCK_KLING_KEY = `${MOCK_KLING_AK}|${MOCK_KLING_SK}`;
export const MOCK_OPENAI_VIDEO_KEY = 'sk-mock-openai-video';
/** The key of a Kling channel pointing at another new-api (served under /kling). */
export const MOCK_KLING_GATEWAY_KEY = 'sk-mock-kling-gateway';
export const MOCK_VIDEO_BYTES = Buffer.from('\u0000\u0000\u0000\u0018ftypmp42mock-video-bytes');

interface MockVideoTask {
  id: string;
  vendor: 'kling' | 'openai';
  kind: string;
  model: string;
  prompt: string;
  polls: number;
  createdAt: number;
  remixOf?: string;
  /** Kling names a result video on its own, apart from the task id. */
  videoId: string;
}

/** A file a multipart submit carried. */
export interface MockVideoFile {
  field: string;
  filename: string;
  type: string;
  bytes: Buffer;
}

export interface MockVideo {
  url: string;
  submits: {
    vendor: 'kling' | 'openai';
    path: string;
    body: Record<string, unknown>;
    files?: MockVideoFile[];
    contentType?: string;
  }[];
  /** Requests refused for a bad or missing JWT. */
  badAuth: number;
  /** Every JWT payload the Kling side accepted. */
  jwtPayloads: { iss: string; exp: number; nbf: number }[];
  tasks: Map<string, MockVideoTask>;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, body: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const now = () => Math.floor(Date.now() / 1000);
const FAIL_AT_POLL = 2;

/** The phase of a task after its polls: 0 queued, 1 running, 2 done, -1 failed (shared by the video vendor mocks). */
export function phase(t: { polls: number; prompt: string }): number {
  if (t.polls === 0) return 0;
  if (t.prompt.includes('never')) return 1;
  if (t.prompt.includes('fail') && t.polls >= FAIL_AT_POLL) return -1;
  return Math.min(t.polls, 2);
}

/** Checks `Authorization: Bearer <jwt>` as Kling does: HS256 signature, iss, nbf ≤ now < exp. */
function klingJwtOk(mock: MockVideo, header: string | undefined): boolean {
  const token = header?.startsWith('Bearer ') ? header.slice(7) : '';
  const [h, p, s] = token.split('.');
  if (!h || !p || !s) return false;
  const expected = crypto.createHmac('sha256', MOCK_KLING_SK).update(`${h}.${p}`).digest('base64url');
  if (expected.length !== s.length || !crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(s))) return false;
  const head = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string };
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { iss: string; exp: number; nbf: number };
  if (head.alg !== 'HS256' || claims.iss !== MOCK_KLING_AK || !(claims.nbf <= now() && now() < claims.exp))
    return false;
  mock.jwtPayloads.push(claims);
  return true;
}

function klingTask(t: MockVideoTask) {
  const ph = phase(t);
  const status = ph === 0 ? 'submitted' : ph === 1 ? 'processing' : ph === 2 ? 'succeed' : 'failed';
  return {
    code: 0,
    message: 'SUCCEED',
    request_id: crypto.randomUUID(),
    data: {
      task_id: t.id,
      task_status: status,
      task_status_msg: ph === -1 ? 'mock: video generation failed' : '',
      task_result:
        ph === 2
          ? { videos: [{ id: t.videoId, url: `https://cdn.mock-kling.test/${t.videoId}.mp4`, duration: '5' }] }
          : undefined,
      created_at: t.createdAt * 1000,
      updated_at: Date.now(),
    },
  };
}

function openAIVideo(t: MockVideoTask) {
  const ph = phase(t);
  const status = ph === 0 ? 'queued' : ph === 1 ? 'in_progress' : ph === 2 ? 'completed' : 'failed';
  return {
    id: t.id,
    object: 'video',
    model: t.model,
    status,
    progress: ph === 0 ? 0 : ph === 1 ? 40 : 100,
    created_at: t.createdAt,
    ...(ph === 2 ? { completed_at: now() } : {}),
    seconds: '4',
    size: '720x1280',
    remixed_from_video_id: t.remixOf ?? null,
    ...(ph === -1 ? { error: { code: 'generation_failed', message: 'mock: sora could not render' } } : {}),
  };
}

function route(
  mock: MockVideo,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Record<string, unknown>,
  files?: MockVideoFile[],
): unknown {
  const path = (req.url ?? '').split('?')[0]!;
  // Another new-api in front of Kling serves it under /kling and takes its own sk- key.
  const relayed = path.startsWith('/kling/');
  const kling = /^\/v1\/videos\/(text2video|image2video)(?:\/([^/]+))?$/.exec(
    relayed ? path.slice('/kling'.length) : path,
  );
  if (kling) {
    if (
      relayed
        ? req.headers.authorization !== `Bearer ${MOCK_KLING_GATEWAY_KEY}`
        : !klingJwtOk(mock, req.headers.authorization)
    ) {
      mock.badAuth++;
      return json(res, { code: 1002, message: 'Authorization is invalid', request_id: crypto.randomUUID() }, 401);
    }
    const [, kind, id] = kling;
    if (req.method === 'POST' && !id) {
      mock.submits.push({ vendor: 'kling', path, body });
      const prompt = String(body.prompt ?? '');
      if (prompt.includes('refuse'))
        return json(
          res,
          { code: 1301, message: 'mock: content security policy', request_id: crypto.randomUUID() },
          400,
        );
      if (kind === 'image2video' && !body.image)
        return json(res, { code: 1201, message: 'image is required', request_id: crypto.randomUUID() }, 400);
      const t: MockVideoTask = {
        id: `kl${crypto.randomBytes(8).toString('hex')}`,
        vendor: 'kling',
        kind: kind!,
        model: String(body.model_name),
        prompt,
        polls: 0,
        createdAt: now(),
        videoId: crypto.randomUUID(),
      };
      mock.tasks.set(t.id, t);
      return json(res, klingTask(t));
    }
    const t = id ? mock.tasks.get(id) : undefined;
    if (req.method === 'GET' && t && t.vendor === 'kling' && t.kind === kind) {
      t.polls++;
      return json(res, klingTask(t));
    }
    return json(res, { code: 1203, message: 'task not found', request_id: crypto.randomUUID() }, 404);
  }
  if (req.headers.authorization !== `Bearer ${MOCK_OPENAI_VIDEO_KEY}`) {
    mock.badAuth++;
    return json(
      res,
      { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
      401,
    );
  }
  if (req.method === 'POST' && path === '/v1/videos') {
    mock.submits.push({ vendor: 'openai', path, body, files, contentType: req.headers['content-type'] });
    const prompt = String(body.prompt ?? '');
    if (prompt.includes('refuse'))
      return json(
        res,
        {
          error: { message: 'mock: prompt violates policy', type: 'invalid_request_error', code: 'moderation_blocked' },
        },
        400,
      );
    const t: MockVideoTask = {
      id: `video_${crypto.randomBytes(8).toString('hex')}`,
      vendor: 'openai',
      kind: '',
      model: String(body.model),
      prompt,
      polls: 0,
      createdAt: now(),
      videoId: '',
    };
    mock.tasks.set(t.id, t);
    return json(res, openAIVideo(t));
  }
  const remix = /^\/v1\/videos\/([^/]+)\/remix$/.exec(path);
  if (req.method === 'POST' && remix) {
    mock.submits.push({ vendor: 'openai', path, body });
    const source = mock.tasks.get(remix[1]!);
    if (!source || source.vendor !== 'openai')
      return json(res, { error: { message: 'video not found', type: 'invalid_request_error' } }, 404);
    if (phase(source) !== 2)
      return json(
        res,
        { error: { message: 'only a completed video can be remixed', type: 'invalid_request_error' } },
        400,
      );
    const prompt = String(body.prompt ?? '');
    const t: MockVideoTask = {
      id: `video_${crypto.randomBytes(8).toString('hex')}`,
      vendor: 'openai',
      kind: '',
      model: source.model,
      prompt,
      polls: 0,
      createdAt: now(),
      remixOf: source.id,
      videoId: '',
    };
    mock.tasks.set(t.id, t);
    return json(res, openAIVideo(t));
  }
  const one = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(path);
  const t = one ? mock.tasks.get(one[1]!) : undefined;
  if (req.method === 'GET' && t && t.vendor === 'openai') {
    if (one![2]) {
      if (phase(t) !== 2)
        return json(res, { error: { message: 'video is not ready', type: 'invalid_request_error' } }, 400);
      return res
        .writeHead(200, { 'content-type': 'video/mp4', 'content-length': MOCK_VIDEO_BYTES.length })
        .end(MOCK_VIDEO_BYTES);
    }
    t.polls++;
    return json(res, openAIVideo(t));
  }
  json(res, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } }, 404);
}

async function readForm(raw: Buffer, type: string): Promise<{ body: Record<string, unknown>; files: MockVideoFile[] }> {
  const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
  const body: Record<string, unknown> = {};
  const files: MockVideoFile[] = [];
  for (const [field, v] of form.entries()) {
    if (typeof v === 'string') body[field] = v;
    else files.push({ field, filename: v.name, type: v.type, bytes: Buffer.from(await v.arrayBuffer()) });
  }
  return { body, files };
}

export async function startMockVideo(): Promise<MockVideo> {
  const mock: MockVideo = {
    url: '',
    submits: [],
    badAuth: 0,
    jwtPayloads: [],
    tasks: new Map(),
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const type = req.headers['content-type'] ?? '';
      if (type.startsWith('multipart/form-data')) {
        // OpenAI's SDK sends its create as a form: text fields and the input_reference file.
        return void readForm(raw, type).then(
          ({ body, files }) => route(mock, req, res, body, files),
          () => json(res, { error: { message: 'bad multipart body' } }, 400),
        );
      }
      let body: Record<string, unknown> = {};
      try {
        if (raw.length) body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        return json(res, { error: { message: 'bad json' } }, 400);
      }
      route(mock, req, res, body);
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
