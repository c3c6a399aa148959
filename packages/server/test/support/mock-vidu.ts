import crypto from 'node:crypto';
import http from 'node:http';
import { serveMock } from './local-server.js';
import { phase } from './mock-video.js';

/**
 * Vidu's API: `POST /ent/v2/{text2video,img2video,start-end2video,reference2video}` and
 * `GET /ent/v2/tasks/{id}/creations`, every call with `Authorization: Token {key}` (else 401). A task moves one
 * step per poll (created → processing → success); a prompt with `fail` ends failed, `never` stays processing,
 * `refuse` is refused at submit.
 */

export const MOCK_VIDU_KEY = 'vda_mock_vidu_key';

interface ViduTask {
  id: string;
  prompt: string;
  polls: number;
}

export interface MockVidu {
  url: string;
  submits: { path: string; body: Record<string, unknown> }[];
  badAuth: number;
  tasks: Map<string, ViduTask>;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const SUBMIT = /^\/ent\/v2\/(text2video|img2video|start-end2video|reference2video)$/;
const CREATIONS = /^\/ent\/v2\/tasks\/([^/]+)\/creations$/;

function route(mock: MockVidu, req: http.IncomingMessage, res: http.ServerResponse, raw: string): unknown {
  const path = (req.url ?? '').split('?')[0]!;
  if (req.headers.authorization !== `Token ${MOCK_VIDU_KEY}`) {
    mock.badAuth++;
    return json(res, 401, { code: 401, reason: 'Unauthorized', message: 'invalid api key' });
  }
  const submit = SUBMIT.exec(path);
  if (req.method === 'POST' && submit) {
    const body = JSON.parse(raw || '{}') as Record<string, unknown>;
    mock.submits.push({ path, body });
    const prompt = String(body.prompt ?? '');
    if (prompt.includes('refuse'))
      return json(res, 400, { code: 400, reason: 'CreditInsufficient', message: 'mock: the prompt was refused' });
    const t: ViduTask = { id: String(800_000_000_000 + mock.tasks.size), prompt, polls: 0 };
    mock.tasks.set(t.id, t);
    return json(res, 200, {
      task_id: t.id,
      state: 'created',
      model: body.model,
      prompt,
      images: body.images,
      duration: body.duration,
      seed: 42,
      resolution: body.resolution,
      movement_amplitude: body.movement_amplitude,
      created_at: new Date().toISOString(),
    });
  }
  const one = CREATIONS.exec(path);
  const t = one ? mock.tasks.get(one[1]!) : undefined;
  if (req.method === 'GET' && t) {
    t.polls++;
    const ph = phase(t);
    const state = ph === 0 ? 'queueing' : ph === 1 ? 'processing' : ph === 2 ? 'success' : 'failed';
    return json(res, 200, {
      id: t.id,
      state,
      err_code: ph === -1 ? 'AuditSubmitIllegal' : '',
      credits: ph === 2 ? 20 : 0,
      payload: '',
      creations:
        ph === 2
          ? [
              {
                id: crypto.randomUUID(),
                url: `https://cdn.mock-vidu.test/${t.id}.mp4`,
                cover_url: `https://cdn.mock-vidu.test/${t.id}.jpg`,
              },
            ]
          : [],
    });
  }
  json(res, 404, { code: 404, reason: 'NotFound', message: `no route ${req.method} ${path}` });
}

export function startMockVidu(): Promise<MockVidu> {
  const mock: MockVidu = { url: '', submits: [], badAuth: 0, tasks: new Map(), close: async () => undefined };
  return serveMock(mock, (req, res, raw) => route(mock, req, res, raw.toString('utf8')));
}
