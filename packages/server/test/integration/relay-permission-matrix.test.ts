import net from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { ChannelType } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpServersOf } from '../../src/modules/mcp-servers/service.js';
import { relayErrors, type RelayError } from '../../src/relay/pipeline/errors.js';
import { modelNotFound, type ModelInfoProtocol } from '../../src/relay/surfaces/model-shapes.js';
import { MJ_QUOTA_DESCRIPTION, MJ_QUOTA_TYPE } from '../../src/relay/tasks/midjourney/wire.js';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, setQuota } from '../support/gateway.js';
import { startMockMidjourney, type MockMidjourney } from '../support/mock-midjourney.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import { MOCK_OPENAI_VIDEO_KEY, startMockVideo, type MockVideo } from '../support/mock-video.js';
import {
  isKeylessRead,
  MJ_MODELS,
  MULTIPART_ROUTES,
  RELAY_MODEL,
  RELAY_VIDEO_MODEL,
  relayJsonRoutes,
  relayReads,
  relayTaskRoutes,
  STUBBED_PREFIXES,
  SUNO_MODELS,
  uncoveredRoutes,
  videoRemixRoute,
  type ReadIds,
  type ReadProtocol,
} from '../support/relay-routes.js';

const PRICE = 0.001;
const TASK_PRICE = 0.01;
const DEADLINE_MS = 10_000;
const POLL_PAUSE_MS = 50;
/** A model no channel serves: the restricted token may use only it. */
const OTHER_MODEL = 'matrix-other-model';
const WITHDRAWN_GROUP = 'vip';
const CLIENT_IP = '127.0.0.1';
/** A server registered for /mcp/<server> (written to the registry directly: nothing connects to it here). */
const MCP_SERVER = 'matrix-mcp';
/** The JSON-RPC error code the MCP endpoint refuses a key with, and the refusals it answers 401 (relay/mcp/routes.ts). */
const MCP_REFUSAL_CODE = -32000;
const MCP_AUTH_REFUSALS = ['token_disabled', 'token_expired', 'token_quota_exhausted', 'user_banned'];
const MCP_ACCEPT = 'application/json, text/event-stream';

/** The shape of a call's answers: a relay protocol's (or a task API's), or the MCP endpoint's JSON-RPC errors. */
type Shape = ReadProtocol | 'mcp';

interface Answer {
  status: number;
  json: Record<string, any> | undefined;
  text: string;
}

/** One cell row of the matrix: a route as a caller reaches it with a key, and what the call is about. */
interface Call {
  label: string;
  /** The shape its answers take (the caller's protocol, the task API's own, or MCP's JSON-RPC). */
  shape: Shape;
  /** The model the call names (a token restricted to other models is refused it). */
  model?: string;
  /** A read of the model (GET models/{model}): a restricted token is told it does not exist, as for any unserved model. */
  modelRead?: boolean;
  /** A model list (a restricted token is served one without the models it may not use). */
  listsModels?: boolean;
  /** Billed (reserved from the balance): an exhausted token is refused; free calls (reads, counting) are served. */
  billed: boolean;
  /** Sent with no good-key check (the realtime upgrade: its served case needs a WebSocket upstream). */
  noControl?: boolean;
  send(key: string): Promise<Answer>;
}

/** A token or user state: its key and the refusal each call gets (undefined: the call is served). */
interface State {
  name: string;
  key: string;
  refusal(call: Call): RelayError | undefined;
  /** What is wrong with a served answer, if anything. */
  served?(call: Call, answer: Answer): string | undefined;
}

const ANTHROPIC_TYPE: Record<number, string> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
};
const GEMINI_STATUS: Record<number, string> = { 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND' };
/** midjourney-proxy's code for a refused request. */
const MJ_REQUEST_ERROR = 4;

/** The refusal `e` as the call's protocol writes it: OpenAI's error object, Anthropic's error event, Gemini's status, the task APIs' own. */
function refusalBody(shape: Shape, e: RelayError): Record<string, unknown> {
  switch (shape) {
    case 'mcp':
      return {
        jsonrpc: '2.0',
        error: { code: MCP_REFUSAL_CODE, message: e.message, data: { code: e.code } },
        id: null,
      };
    case 'openai':
      return { error: { message: e.message, type: e.type, code: e.code } };
    case 'anthropic':
      return { type: 'error', error: { type: ANTHROPIC_TYPE[e.status], message: e.message } };
    case 'gemini':
      return { error: { code: e.status, message: e.message, status: GEMINI_STATUS[e.status] } };
    case 'mj':
      // A quota refusal is midjourney-proxy's own (as new-api answers it); every other refusal carries the reason.
      return e.type === MJ_QUOTA_TYPE
        ? { code: MJ_REQUEST_ERROR, description: MJ_QUOTA_DESCRIPTION, result: '', properties: null, type: e.type }
        : { code: MJ_REQUEST_ERROR, description: e.message, result: '', properties: null };
    case 'suno':
      return { code: e.code, message: e.message, data: null };
  }
}

/** The status of refusal `e` in `shape`: the MCP endpoint answers a key that does not authenticate 401, as its transport expects. */
const refusalStatus = (shape: Shape, e: RelayError): number =>
  shape === 'mcp' && MCP_AUTH_REFUSALS.includes(e.code ?? '') ? 401 : e.status;

/** Whether `actual` has every field of `expected` with its value (objects compared field by field). */
function contains(actual: unknown, expected: unknown): boolean {
  if (expected && typeof expected === 'object' && !Array.isArray(expected)) {
    if (!actual || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([k, v]) => contains((actual as Record<string, unknown>)[k], v));
  }
  return isDeepStrictEqual(actual, expected);
}

const parse = (text: string): Record<string, any> | undefined => {
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return undefined;
  }
};

const answerOf = async (r: Response): Promise<Answer> => {
  const text = await r.text();
  return { status: r.status, json: parse(text), text };
};

const keyHeaders = (shape: Shape, key: string): Record<string, string> =>
  shape === 'anthropic'
    ? { 'x-api-key': key, 'anthropic-version': '2023-06-01' }
    : shape === 'gemini'
      ? { 'x-goog-api-key': key }
      : { authorization: `Bearer ${key}` };

/** A WebSocket upgrade to /v1/realtime: the refusal is an HTTP answer on the socket. */
function realtimeUpgrade(port: number, key: string, model: string): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
      const text = raw.slice(raw.indexOf('\r\n\r\n') + 4);
      resolve({ status, json: parse(text), text: raw.slice(0, 300) });
    };
    const timer = setTimeout(done, 5000);
    socket.on('data', (c) => (raw += c.toString()));
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.write(
      `GET /v1/realtime?model=${model} HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\n` +
        `sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nauthorization: Bearer ${key}\r\n\r\n`,
    );
  });
}

/**
 * The relay's permission matrix: every relay route (JSON, multipart, Midjourney under every mode prefix, Suno,
 * video, the GET reads and the realtime upgrade) × every token and user state that must be refused — disabled,
 * expired, exhausted, restricted to other models, outside its IP allow-list, banned user, withdrawn group. Each
 * refusal is the exact status, code and message in the route's own error shape; never a 5xx, and the upstream
 * receives nothing. The states are made once per database; the routes are looped.
 */
describe.each(dialects)('the relay permission matrix on %s', (dialect) => {
  let t: TestApp,
    mock: MockUpstream,
    video: MockVideo,
    mj: MockMidjourney,
    suno: MockSuno,
    root: Client,
    user: Client,
    base: string,
    key: string;
  let banned: Client, withdrawn: Client;
  let ids: ReadIds;
  const states: State[] = [];
  const calls: Call[] = [];

  // The poller is left to the test (it would poll the mocks between a call and its count).
  const gw = useGateway(
    dialect,
    { user: 'matrix-user', quota: 500_000_000, env: { TASK_POLL_INTERVAL_MS: '3600000' }, timeout: 60_000 },
    async (g) => {
      ({ t, mock, root, user, base, key } = g);
      video = await startMockVideo();
      mj = await startMockMidjourney();
      suno = await startMockSuno();
      const set = (k: string, v: unknown) =>
        root.call('PUT', '/api/option/', { key: k, value: typeof v === 'string' ? v : JSON.stringify(v) });
      const taskModels = [...MJ_MODELS.split(','), ...SUNO_MODELS.split(',')];
      await set('ModelPrice', {
        [RELAY_MODEL]: PRICE,
        [RELAY_VIDEO_MODEL]: PRICE,
        ...Object.fromEntries(taskModels.map((m) => [m, TASK_PRICE])),
      });
      await set('UserUsableGroups', { default: 'Default', [WITHDRAWN_GROUP]: 'VIP' });
      await addChannel(root, { name: 'matrix', key: 'matrix-key', baseUrl: mock.url, models: RELAY_MODEL });
      await addChannel(root, {
        name: 'matrix-video',
        key: MOCK_OPENAI_VIDEO_KEY,
        baseUrl: video.url,
        models: RELAY_VIDEO_MODEL,
        type: ChannelType.Sora,
      });
      await addChannel(root, {
        name: 'matrix-mj',
        type: ChannelType.Midjourney,
        key: mj.secret,
        baseUrl: mj.url,
        models: MJ_MODELS,
      });
      await addChannel(root, {
        name: 'matrix-suno',
        type: ChannelType.SunoAPI,
        key: MOCK_SUNO_KEY,
        baseUrl: suno.url,
        models: SUNO_MODELS,
      });

      // A finished task of each kind, owned by the caller: the actions act on them and the reads name them.
      const post = async (path: string, body: unknown) =>
        answerOf(
          await fetch(`${base}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        );
      const get = async (path: string) =>
        answerOf(await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } }));
      ids = {
        mj: String((await post('/mj/submit/imagine', { prompt: 'the origin' })).json?.result),
        video: String((await post('/v1/videos', { model: RELAY_VIDEO_MODEL, prompt: 'the origin' })).json?.id),
        suno: String((await post('/suno/submit/music', { prompt: 'the origin' })).json?.data),
      };
      const end = Date.now() + DEADLINE_MS;
      while (
        (await get(`/mj/task/${ids.mj}/fetch`)).json?.status !== 'SUCCESS' ||
        (await get(`/v1/videos/${ids.video}`)).json?.status !== 'completed'
      ) {
        if (Date.now() > end) throw new Error('the origin tasks did not finish');
        await t.runtime.taskPoller.pass(Math.floor(Date.now() / 1000));
        await new Promise((r) => setTimeout(r, POLL_PAUSE_MS));
      }

      // The states, each a token (or user) wrong in one way only.
      const uid = user.userId!;
      const k = t.database.db.kysely;
      const disabled = await addToken(t, uid, { name: 'disabled' });
      await k.updateTable('tokens').set({ status: 2 }).where('id', '=', disabled.id).execute();
      const expired = await addToken(t, uid, { name: 'expired', expiredTime: Math.floor(Date.now() / 1000) - 10 });
      const exhausted = await addToken(t, uid, { name: 'exhausted', remainQuota: 0, unlimited: false });
      const restricted = await addToken(t, uid, { name: 'restricted', modelLimits: OTHER_MODEL });
      const ipDenied = await addToken(t, uid, { name: 'ip', allowIps: '10.0.0.0/8\n192.168.0.0/16' });
      banned = await createUserClient(t.app, root, 'matrix-banned');
      await setQuota(root, banned.userId!, 500_000_000);
      const bannedToken = await addToken(t, banned.userId!, { name: 'banned' });
      expect((await root.call('POST', '/api/user/manage', { id: banned.userId, action: 'disable' })).body.success).toBe(
        true,
      );
      withdrawn = await createUserClient(t.app, root, 'matrix-withdrawn');
      await setQuota(root, withdrawn.userId!, 500_000_000);
      const pinned = await addToken(t, withdrawn.userId!, { name: 'pinned' });
      await k.updateTable('tokens').set({ group: WITHDRAWN_GROUP }).where('id', '=', pinned.id).execute();
      // The group is withdrawn from every user after the token was pinned to it.
      await set('UserUsableGroups', { default: 'Default' });

      const refusedAlways = (e: RelayError) => () => e;
      states.push(
        { name: 'disabled token', key: disabled.key, refusal: refusedAlways(relayErrors.tokenDisabled()) },
        { name: 'expired token', key: expired.key, refusal: refusedAlways(relayErrors.tokenExpired()) },
        {
          name: 'exhausted token',
          key: exhausted.key,
          refusal: (c) => (c.billed ? relayErrors.tokenExhausted() : undefined),
        },
        {
          name: 'token restricted to other models',
          key: restricted.key,
          refusal: (c) =>
            c.model === undefined
              ? undefined
              : c.modelRead
                ? modelNotFound(c.model, c.shape as ModelInfoProtocol)
                : relayErrors.modelNotAllowed(c.model),
          served: (c, r) =>
            c.listsModels && [RELAY_MODEL, RELAY_VIDEO_MODEL, 'mj_', 'suno_'].some((m) => r.text.includes(m))
              ? `a model list with models: ${r.text.slice(0, 160)}`
              : undefined,
        },
        {
          name: 'token outside its IP allow-list',
          key: ipDenied.key,
          refusal: refusedAlways(relayErrors.ipDenied(CLIENT_IP)),
        },
        { name: 'banned user', key: bannedToken.key, refusal: refusedAlways(relayErrors.userBanned()) },
        {
          name: 'withdrawn group',
          key: pinned.key,
          refusal: refusedAlways(relayErrors.groupWithdrawn(WITHDRAWN_GROUP)),
        },
      );

      // Every route a key reaches, from the lists the bad-input sweeps use.
      const postJson = (path: string, shape: ReadProtocol, body: unknown) => async (k: string) =>
        answerOf(
          await fetch(`${base}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...keyHeaders(shape, k) },
            body: JSON.stringify(body),
          }),
        );
      for (const route of [...relayJsonRoutes(), videoRemixRoute(ids.video)].filter((r) => r.auth === 'key')) {
        const model =
          typeof route.valid.model === 'string'
            ? route.valid.model
            : route.path.includes('/remix')
              ? RELAY_VIDEO_MODEL
              : RELAY_MODEL;
        calls.push({
          label: `POST ${route.label ?? route.path}`,
          shape: route.protocol,
          model,
          billed: !route.local,
          send: postJson(route.path, route.protocol, route.valid),
        });
      }
      for (const path of MULTIPART_ROUTES) {
        const form = () => {
          const f = new FormData();
          f.set('model', RELAY_MODEL);
          if (path.includes('images')) {
            f.set('prompt', 'a hat');
            f.set('image', new Blob([Buffer.from('png')], { type: 'image/png' }), 'a.png');
          } else f.set('file', new Blob([Buffer.from('mp3')], { type: 'audio/mpeg' }), 'a.mp3');
          return f;
        };
        calls.push({
          label: `POST ${path}`,
          shape: 'openai',
          model: RELAY_MODEL,
          billed: true,
          send: async (k) =>
            answerOf(await fetch(`${base}${path}`, { method: 'POST', headers: keyHeaders('openai', k), body: form() })),
        });
      }
      for (const route of relayTaskRoutes(() => ids.mj).filter((r) => !r.noKey))
        calls.push({
          label: `POST ${route.path}`,
          shape: route.protocol,
          model: route.model,
          billed: route.model !== undefined,
          send: postJson(route.path, route.protocol, route.valid()),
        });
      for (const read of relayReads(ids))
        calls.push({
          label: `GET ${read.path} (${read.protocol})`,
          shape: read.protocol,
          model: read.model,
          modelRead: read.model !== undefined,
          listsModels: /\/models$/.test(read.path),
          billed: false,
          send: async (k) =>
            answerOf(await fetch(`${base}${read.path}`, { headers: keyHeaders(read.protocol, k), redirect: 'manual' })),
        });
      // The MCP endpoint (issue 39): a session opened by initialize (POST), and its event stream (GET).
      const now = Math.floor(Date.now() / 1000);
      await mcpServersOf(t.runtime.ctx).store.insert({
        name: MCP_SERVER,
        transport: 'http',
        url: `${mock.url}/mcp`,
        command: '',
        args: '[]',
        headers: '',
        enabled: 1,
        allow_tools: '',
        deny_tools: '',
        allow_groups: '',
        price: 1,
        created_at: now,
        updated_at: now,
      });
      for (const path of ['/mcp', `/mcp/${MCP_SERVER}`]) {
        calls.push({ label: `POST ${path}`, shape: 'mcp', billed: false, send: (k) => mcpInitialize(path, k) });
        calls.push({
          label: `GET ${path} (the key's session stream)`,
          shape: 'mcp',
          billed: false,
          send: async (k) => {
            // The key's own session when it may open one, else the good key's (a refusal comes before the session).
            const opened = await mcpInitialize(path, k);
            const sid = opened.session ?? (await mcpInitialize(path, key)).session!;
            const abort = new AbortController();
            const r = await fetch(`${base}${path}`, {
              headers: { ...keyHeaders('mcp', k), accept: 'text/event-stream', 'mcp-session-id': sid },
              signal: abort.signal,
            });
            // A served stream stays open: its status is the answer.
            if (r.status === 200) {
              abort.abort();
              return { status: 200, json: undefined, text: '' };
            }
            return answerOf(r);
          },
        });
      }
      const port = Number(new URL(base).port);
      calls.push({
        label: 'GET /v1/realtime (upgrade)',
        shape: 'openai',
        model: RELAY_MODEL,
        billed: true,
        noControl: true,
        send: (k) => realtimeUpgrade(port, k, RELAY_MODEL),
      });
    },
  );
  /** An MCP initialize on `path` with `k`; the answer, and the session it opened. */
  const mcpInitialize = async (path: string, k: string): Promise<Answer & { session?: string }> => {
    const r = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...keyHeaders('mcp', k), 'content-type': 'application/json', accept: MCP_ACCEPT },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'matrix', version: '1' } },
      }),
    });
    return { ...(await answerOf(r)), session: r.headers.get('mcp-session-id') ?? undefined };
  };
  afterAll(async () => {
    await video?.close();
    await mj?.close();
    await suno?.close();
  });
  void gw;

  /** Every call the upstreams have received. */
  const upstreamCalls = () =>
    mock.requests.length +
    mock.uploads.length +
    video.submits.length +
    mj.requests.length +
    suno.submits.length +
    suno.fetches.length;

  it('covers every relay route the server registers (POST and GET), from the sweeps’ route lists', () => {
    const paths = calls.map((c) => c.label.replace(/^(POST|GET) /, '').replace(/ \(.*\)$/, ''));
    const posts = t.registered
      .filter(
        (r) =>
          r.method === 'POST' &&
          !r.url.startsWith('/api') &&
          !r.url.endsWith('/mj/notify') &&
          !STUBBED_PREFIXES.some((p) => r.url === p || r.url === `${p}/*`),
      )
      .map((r) => r.url);
    // The playground is the console session's, checked below.
    expect(uncoveredRoutes(posts, [...paths, '/pg/chat/completions'])).toEqual([]);
    const reads = t.registered.filter((r) => r.method === 'GET' && !isKeylessRead(r.url)).map((r) => r.url);
    expect(uncoveredRoutes(reads, paths)).toEqual([]);
    expect(posts.length + reads.length).toBeGreaterThan(90);
  });

  it('serves every call with a good key (each refusal below is the state’s, not the body’s)', async () => {
    const failures: string[] = [];
    for (const call of calls.filter((c) => !c.noControl)) {
      const r = await call.send(key);
      if (r.status >= 400) failures.push(`${call.label}: ${r.status} ${r.text.slice(0, 160)}`);
      if (call.listsModels && !r.text.includes(RELAY_MODEL))
        failures.push(`${call.label}: ${RELAY_MODEL} is not listed: ${r.text.slice(0, 160)}`);
    }
    expect(failures).toEqual([]);
    const pg = await user.call('POST', '/pg/chat/completions', {
      model: RELAY_MODEL,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(pg.status).toBe(200);
  });

  it('refuses every state on every route with its exact status and error in the route’s shape; the upstream receives nothing', async () => {
    const failures: string[] = [];
    let refused = 0;
    let served = 0;
    for (const state of states)
      for (const call of calls) {
        const expected = state.refusal(call);
        const before = upstreamCalls();
        const r = await call.send(state.key);
        const label = `${state.name} × ${call.label}`;
        if (r.status >= 500) failures.push(`${label}: a 5xx: ${r.status} ${r.text.slice(0, 160)}`);
        else if (!expected) {
          served++;
          if (r.status >= 300) failures.push(`${label}: served expected, got ${r.status} ${r.text.slice(0, 160)}`);
          const wrong = state.served?.(call, r);
          if (wrong) failures.push(`${label}: ${wrong}`);
        } else {
          refused++;
          const body = refusalBody(call.shape, expected);
          const status = refusalStatus(call.shape, expected);
          if (r.status !== status || !contains(r.json, body))
            failures.push(
              `${label}: expected ${status} ${JSON.stringify(body)}, got ${r.status} ${r.text.slice(0, 200)}`,
            );
          if (upstreamCalls() !== before) failures.push(`${label}: the upstream was called`);
        }
      }
    expect(failures).toEqual([]);
    // Served by design: an exhausted token's free calls (counting, reads), and a restricted token's calls naming no model.
    expect(refused + served).toBe(states.length * calls.length);
    expect(refused).toBeGreaterThan(0.9 * states.length * calls.length);
  });

  it('keeps an MCP session to the token that opened it: another token, another user’s, a deleted user’s are refused', async () => {
    const opened = await mcpInitialize('/mcp', key);
    expect(opened.status).toBe(200);
    const list = (k: string) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          ...keyHeaders('mcp', k),
          'content-type': 'application/json',
          accept: MCP_ACCEPT,
          'mcp-session-id': opened.session!,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      }).then(answerOf);
    const sessionNotFound = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };
    const own = await addToken(t, user.userId!, { name: 'mcp-own-other' });
    const stranger = await createUserClient(t.app, root, 'matrix-mcp-other');
    const strangers = await addToken(t, stranger.userId!, { name: 'mcp-stranger' });
    for (const k of [own.key, strangers.key]) {
      const r = await list(k);
      expect([r.status, r.json]).toEqual([404, sessionNotFound]);
    }
    // A deleted user's key is refused as one that never was, on its own session too.
    const doomed = await createUserClient(t.app, root, 'matrix-mcp-deleted');
    const doomedKey = (await addToken(t, doomed.userId!, { name: 'mcp-doomed' })).key;
    const theirs = await mcpInitialize('/mcp', doomedKey);
    expect(theirs.status).toBe(200);
    expect((await root.call('POST', '/api/user/manage', { id: doomed.userId, action: 'delete' })).body.success).toBe(
      true,
    );
    const gone = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...keyHeaders('mcp', doomedKey),
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        'mcp-session-id': theirs.session!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    }).then(answerOf);
    expect([gone.status, gone.json?.error?.code]).toEqual([401, MCP_REFUSAL_CODE]);
    // The session's own token still lists.
    expect((await list(key)).status).toBe(200);
  });

  it('refuses the playground to a banned user and to a user whose only token is in a withdrawn group, in OpenAI’s shape', async () => {
    const hi = { model: RELAY_MODEL, messages: [{ role: 'user', content: 'hi' }] };
    const before = upstreamCalls();
    // Disabling a user ends their sessions: the console session is no longer one.
    const b = await banned.call('POST', '/pg/chat/completions', hi);
    expect(b.status).toBe(401);
    expect(b.body).toMatchObject({
      error: {
        message: 'no permission: not logged in and no access token provided',
        type: 'invalid_request_error',
        code: 'unauthorized',
      },
    });
    const w = await withdrawn.call('POST', '/pg/chat/completions', hi);
    const e = relayErrors.groupWithdrawn(WITHDRAWN_GROUP);
    expect(w.status).toBe(e.status);
    expect(w.body).toMatchObject(refusalBody('openai', e));
    expect(upstreamCalls()).toBe(before);
  });
});
