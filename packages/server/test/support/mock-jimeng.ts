import crypto from 'node:crypto';
import http from 'node:http';
import { serveMock } from './local-server.js';
import { phase } from './mock-video.js';

/**
 * Jimeng (Volcengine's visual API): `POST /?Action=CVSync2AsyncSubmitTask&Version=2022-08-31` and
 * `…CVSync2AsyncGetResult…`, JSON bodies. Every request must carry Volcengine's HMAC-SHA256 signature, checked
 * here on its own (canonical request → string to sign → key derived from the secret by date, region, service):
 * a bad or missing one is refused with 401 and `ResponseMetadata.Error` SignatureDoesNotMatch. A task moves one
 * step per result call (in_queue → generating → done); a prompt with `fail` ends with an error code, `never`
 * stays generating, `refuse` is refused at submit.
 */

export const MOCK_JIMENG_AK = 'AKLTmockjimeng';
export const MOCK_JIMENG_SK = 'mock-jimeng-secret==';
export const MOCK_JIMENG_KEY = `${MOCK_JIMENG_AK}|${MOCK_JIMENG_SK}`;
const OK = 10000;
const MAX_SKEW_MS = 15 * 60 * 1000;

interface JimengTask {
  id: string;
  reqKey: string;
  prompt: string;
  polls: number;
}

export interface MockJimeng {
  url: string;
  submits: Record<string, unknown>[];
  /** Requests refused for a bad signature. */
  badSignature: number;
  /** Every signed request accepted (its X-Date and signed headers). */
  signed: { xDate: string; signedHeaders: string }[];
  tasks: Map<string, JimengTask>;
  close(): Promise<void>;
}

const sha256 = (d: string | Buffer) => crypto.createHash('sha256').update(d).digest('hex');
const hmac = (k: string | Buffer, d: string) => crypto.createHmac('sha256', k).update(d).digest();

/** Verifies the Authorization header of a request against the mock's secret key, as Volcengine's gateway does. */
function signatureOk(mock: MockJimeng, req: http.IncomingMessage, raw: Buffer): boolean {
  const m =
    /^HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ''),
    );
  if (!m) return false;
  const [, ak, day, region, service, signedHeaders, signature] = m;
  const xDate = String(req.headers['x-date'] ?? '');
  const stamp = Date.parse(
    `${xDate.slice(0, 4)}-${xDate.slice(4, 6)}-${xDate.slice(6, 8)}T${xDate.slice(9, 11)}:${xDate.slice(11, 13)}:${xDate.slice(13, 15)}Z`,
  );
  if (ak !== MOCK_JIMENG_AK || region !== 'cn-north-1' || service !== 'cv' || !xDate.startsWith(day!)) return false;
  if (!(Math.abs(Date.now() - stamp) < MAX_SKEW_MS)) return false;
  const bodyHash = sha256(raw);
  if (req.headers['x-content-sha256'] !== bodyHash) return false;
  const names = signedHeaders!.split(';');
  if (!names.includes('host') || !names.includes('x-date') || !names.includes('x-content-sha256')) return false;
  const url = new URL(req.url ?? '/', 'http://mock');
  const query = [...url.searchParams.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  const headerLines = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim()}\n`).join('');
  const canonical = `${req.method}\n${url.pathname}\n${query}\n${headerLines}\n${signedHeaders}\n${bodyHash}`;
  const scope = `${day}/${region}/${service}/request`;
  const toSign = `HMAC-SHA256\n${xDate}\n${scope}\n${sha256(canonical)}`;
  const key = hmac(hmac(hmac(hmac(MOCK_JIMENG_SK, day!), region!), service!), 'request');
  const expected = crypto.createHmac('sha256', key).update(toSign).digest('hex');
  if (!crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(signature!))) return false;
  mock.signed.push({ xDate, signedHeaders: signedHeaders! });
  return true;
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const answer = (code: number, message: string, data: unknown) => ({
  code,
  message,
  data,
  request_id: crypto.randomUUID(),
  status: code,
  time_elapsed: '12ms',
});

function route(mock: MockJimeng, req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): unknown {
  const url = new URL(req.url ?? '/', 'http://mock');
  const action = url.searchParams.get('Action');
  if (!signatureOk(mock, req, raw)) {
    mock.badSignature++;
    return json(res, 401, {
      ResponseMetadata: {
        RequestId: crypto.randomUUID(),
        Action: action,
        Version: url.searchParams.get('Version'),
        Service: 'cv',
        Region: 'cn-north-1',
        Error: {
          CodeN: 100010,
          Code: 'SignatureDoesNotMatch',
          Message: 'The request signature we calculated does not match',
        },
      },
    });
  }
  const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
  if (req.method !== 'POST' || url.pathname !== '/' || url.searchParams.get('Version') !== '2022-08-31')
    return json(res, 404, answer(50404, 'not found', null));
  if (action === 'CVSync2AsyncSubmitTask') {
    mock.submits.push(body);
    const prompt = String(body.prompt ?? '');
    if (prompt.includes('refuse')) return json(res, 400, answer(50411, 'Pre Text Risk Not Pass', null));
    const t: JimengTask = {
      id: String(7_000_000_000 + mock.tasks.size),
      reqKey: String(body.req_key),
      prompt,
      polls: 0,
    };
    mock.tasks.set(t.id, t);
    return json(res, 200, answer(OK, 'Success', { task_id: t.id }));
  }
  if (action === 'CVSync2AsyncGetResult') {
    const t = mock.tasks.get(String(body.task_id));
    if (!t || t.reqKey !== body.req_key) return json(res, 200, answer(OK, 'Success', { status: 'not_found' }));
    t.polls++;
    const ph = phase(t);
    if (ph === -1) return json(res, 200, answer(50500, 'mock: video generation failed', null));
    const status = ph === 0 ? 'in_queue' : ph === 1 ? 'generating' : 'done';
    return json(
      res,
      200,
      answer(OK, 'Success', {
        status,
        video_url: ph === 2 ? `https://cdn.mock-jimeng.test/${t.id}.mp4` : '',
        resp_data: '',
        binary_data_base64: [],
        image_urls: null,
      }),
    );
  }
  json(res, 400, answer(50400, `unknown action ${String(action)}`, null));
}

export function startMockJimeng(): Promise<MockJimeng> {
  const mock: MockJimeng = {
    url: '',
    submits: [],
    badSignature: 0,
    signed: [],
    tasks: new Map(),
    close: async () => undefined,
  };
  return serveMock(mock, (req, res, raw) => route(mock, req, res, raw));
}
