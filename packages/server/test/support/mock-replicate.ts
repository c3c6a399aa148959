import crypto from 'node:crypto';
import http from 'node:http';
import { serveMock } from './local-server.js';

/**
 * Replicate's predictions API: `POST /v1/models/{owner}/{name}/predictions` ({input}; with `Prefer: wait` a quick
 * prediction is answered finished), `GET /v1/predictions/{id}` and `POST /v1/files` (an edit's image, one `content`
 * file), every call with `Authorization: Bearer {token}`
 * (else 401). Prompts: `slow` starts unfinished and succeeds on its second poll, `fail` ends failed, `refuse` is
 * a 422 input validation error; any other succeeds at once with `num_outputs` image URLs (a single URL string
 * for `…-pro` models, as FLUX 1.1 Pro answers), served by the mock itself at `/delivery/…`.
 */

export const MOCK_REPLICATE_KEY = 'r8_mock_replicate_token';

interface Prediction {
  id: string;
  model: string;
  input: Record<string, unknown>;
  polls: number;
  status: string;
}

export interface MockReplicate {
  url: string;
  submits: { path: string; prefer: string; body: { input: Record<string, unknown> } }[];
  polls: number;
  /** Files uploaded through the files API. */
  files: { id: string; name: string; type: string; bytes: Buffer }[];
  /** Output images fetched. */
  downloads: number;
  badAuth: number;
  predictions: Map<string, Prediction>;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const SUBMIT = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/;
const ONE = /^\/v1\/predictions\/([^/]+)$/;

/** The bytes of every output image (served at `/delivery/…`, without a token, as replicate.delivery serves them). */
export const MOCK_REPLICATE_IMAGE = Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPmock-replicate-image');

function outputOf(mock: MockReplicate, p: Prediction): unknown {
  const n = typeof p.input.num_outputs === 'number' ? p.input.num_outputs : 1;
  const urls = Array.from({ length: n }, (_, i) => `${mock.url}/delivery/${p.id}/out-${i}.webp`);
  return p.model.endsWith('-pro') ? urls[0] : urls;
}

function view(mock: MockReplicate, p: Prediction) {
  return {
    id: p.id,
    model: p.model,
    version: 'hidden',
    input: p.input,
    logs: '',
    output: p.status === 'succeeded' ? outputOf(mock, p) : null,
    data_removed: false,
    error:
      p.status === 'failed' ? 'mock: NSFW content detected. Try running it again, or try a different prompt.' : null,
    status: p.status,
    created_at: new Date().toISOString(),
    urls: {
      get: `${mock.url}/v1/predictions/${p.id}`,
      cancel: `${mock.url}/v1/predictions/${p.id}/cancel`,
      web: `https://replicate.com/p/${p.id}`,
    },
  };
}

function route(mock: MockReplicate, req: http.IncomingMessage, res: http.ServerResponse, raw: string): unknown {
  const path = (req.url ?? '').split('?')[0]!;
  if (req.method === 'GET' && path.startsWith('/delivery/')) {
    mock.downloads++;
    return res.writeHead(200, { 'content-type': 'image/webp' }).end(MOCK_REPLICATE_IMAGE);
  }
  if (req.headers.authorization !== `Bearer ${MOCK_REPLICATE_KEY}`) {
    mock.badAuth++;
    return json(res, 401, {
      title: 'Unauthenticated',
      detail: 'You did not pass a valid authentication token',
      status: 401,
    });
  }
  if (req.method === 'POST' && path === '/v1/files') return void upload(mock, req, res, raw);
  const submit = SUBMIT.exec(path);
  if (req.method === 'POST' && submit) {
    const body = JSON.parse(Buffer.from(raw, 'latin1').toString('utf8') || '{}') as { input: Record<string, unknown> };
    mock.submits.push({ path, prefer: String(req.headers.prefer ?? ''), body });
    const prompt = String(body.input?.prompt ?? '');
    if (prompt.includes('refuse'))
      return json(res, 422, {
        title: 'Input validation failed',
        detail: '- input.prompt: mock: the prompt was flagged',
        status: 422,
        invalid_fields: [{ type: 'flagged', field: 'input.prompt', description: 'mock: the prompt was flagged' }],
      });
    const p: Prediction = {
      id: crypto.randomBytes(10).toString('hex'),
      model: `${submit[1]}/${submit[2]}`,
      input: body.input,
      polls: 0,
      status: prompt.includes('slow') ? 'starting' : prompt.includes('fail') ? 'failed' : 'succeeded',
    };
    mock.predictions.set(p.id, p);
    return json(res, 201, view(mock, p));
  }
  const one = ONE.exec(path);
  const p = one ? mock.predictions.get(one[1]!) : undefined;
  if (req.method === 'GET' && p) {
    mock.polls++;
    p.polls++;
    if (p.status === 'starting' || p.status === 'processing') p.status = p.polls >= 2 ? 'succeeded' : 'processing';
    return json(res, 200, view(mock, p));
  }
  json(res, 404, { title: 'Not found', detail: `no route ${req.method} ${path}`, status: 404 });
}

/** Replicate's files API: one `content` file in a form; its answer names the file's URL. */
async function upload(mock: MockReplicate, req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
  const form = await new Response(Buffer.from(raw, 'latin1'), {
    headers: { 'content-type': String(req.headers['content-type']) },
  })
    .formData()
    .catch(() => undefined);
  const file = form?.get('content');
  if (!file || typeof file === 'string')
    return json(res, 400, { title: 'Bad request', detail: 'a content file is required', status: 400 });
  const id = crypto.randomBytes(8).toString('hex');
  const bytes = Buffer.from(await file.arrayBuffer());
  mock.files.push({ id, name: file.name, type: file.type, bytes });
  json(res, 201, {
    id,
    name: file.name,
    content_type: file.type,
    size: bytes.length,
    checksums: { sha256: crypto.createHash('sha256').update(bytes).digest('hex') },
    metadata: {},
    created_at: new Date().toISOString(),
    urls: { get: `${mock.url}/v1/files/${id}` },
  });
}

export function startMockReplicate(): Promise<MockReplicate> {
  const mock: MockReplicate = {
    url: '',
    submits: [],
    polls: 0,
    downloads: 0,
    files: [],
    badAuth: 0,
    predictions: new Map(),
    close: async () => undefined,
  };
  return serveMock(mock, (req, res, raw) => route(mock, req, res, raw.toString('latin1')));
}
