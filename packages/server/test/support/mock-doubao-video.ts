import crypto from 'node:crypto';
import http from 'node:http';
import { serveMock } from './local-server.js';
import { phase } from './mock-video.js';

/**
 * Volcengine Ark's video generation (Doubao Seedance): `POST /api/v3/contents/generations/tasks` and
 * `GET /api/v3/contents/generations/tasks/{id}`, with `Authorization: Bearer {key}` (else 401 AuthenticationError).
 * A task moves one step per poll (queued → running → succeeded); a prompt with `fail` ends failed, `never` stays
 * running, `refuse` is refused at submit.
 */

export const MOCK_DOUBAO_KEY = 'ark-mock-doubao-video-key';

interface DoubaoTask {
  id: string;
  model: string;
  prompt: string;
  duration: number;
  polls: number;
  createdAt: number;
}

export interface MockDoubaoVideo {
  url: string;
  submits: Record<string, unknown>[];
  badAuth: number;
  tasks: Map<string, DoubaoTask>;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const PATH = '/api/v3/contents/generations/tasks';
const DEFAULT_DURATION = 5;

function route(mock: MockDoubaoVideo, req: http.IncomingMessage, res: http.ServerResponse, raw: string): unknown {
  const path = (req.url ?? '').split('?')[0]!;
  if (req.headers.authorization !== `Bearer ${MOCK_DOUBAO_KEY}`) {
    mock.badAuth++;
    return json(res, 401, {
      error: {
        code: 'AuthenticationError',
        message: 'The API key in the request is missing or invalid.',
        param: '',
        type: 'Unauthorized',
      },
    });
  }
  if (req.method === 'POST' && path === PATH) {
    const body = JSON.parse(raw || '{}') as {
      model?: string;
      content?: { type: string; text?: string }[];
      duration?: number;
    };
    mock.submits.push(body as Record<string, unknown>);
    const prompt = body.content?.find((c) => c.type === 'text')?.text ?? '';
    if (prompt.includes('refuse'))
      return json(res, 400, {
        error: {
          code: 'InputTextSensitiveContentDetected',
          message: 'mock: the prompt may contain sensitive content',
          type: 'BadRequest',
        },
      });
    const t: DoubaoTask = {
      id: `cgt-${crypto.randomBytes(8).toString('hex')}`,
      model: String(body.model),
      prompt,
      duration: body.duration ?? DEFAULT_DURATION,
      polls: 0,
      createdAt: Math.floor(Date.now() / 1000),
    };
    mock.tasks.set(t.id, t);
    return json(res, 200, { id: t.id });
  }
  const t = path.startsWith(`${PATH}/`) ? mock.tasks.get(path.slice(PATH.length + 1)) : undefined;
  if (req.method === 'GET' && t) {
    t.polls++;
    const ph = phase(t);
    const status = ph === 0 ? 'queued' : ph === 1 ? 'running' : ph === 2 ? 'succeeded' : 'failed';
    return json(res, 200, {
      id: t.id,
      model: t.model,
      status,
      content: ph === 2 ? { video_url: `https://ark-content.mock-doubao.test/${t.id}.mp4` } : undefined,
      usage: ph === 2 ? { completion_tokens: 108900, total_tokens: 108900 } : undefined,
      error: ph === -1 ? { code: 'OutputVideoSensitiveContentDetected', message: 'mock: the video was blocked' } : null,
      created_at: t.createdAt,
      updated_at: Math.floor(Date.now() / 1000),
      seed: 11,
      resolution: '720p',
      ratio: '16:9',
      duration: t.duration,
      framespersecond: 24,
    });
  }
  json(res, 404, { error: { code: 'NotFound', message: `no route ${req.method} ${path}`, type: 'NotFound' } });
}

export function startMockDoubaoVideo(): Promise<MockDoubaoVideo> {
  const mock: MockDoubaoVideo = { url: '', submits: [], badAuth: 0, tasks: new Map(), close: async () => undefined };
  return serveMock(mock, (req, res, raw) => route(mock, req, res, raw.toString('utf8')));
}
