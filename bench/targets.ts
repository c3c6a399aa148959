// Processes the benchmark measures: the mock upstream, Tollway (SQLite, full auth, billing and logging) and Portkey.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadSqliteDriver } from '../packages/server/src/db/sqlite-driver.js';
import { freePort, proxyCommand, start, type Proc } from './procs.js';
import type { Target } from './measure.js';
import { buildServer, serverBundle, serverIsStale } from '../scripts/server-build.mjs';

// better-sqlite3 of the line that runs on this Node.js.
const Database = await loadSqliteDriver();
const { Client } = pg;

export const ROOT = path.resolve(import.meta.dirname, '..');
/** The password of the root user every bench Tollway is set up with (user name `root`). */
export const BENCH_ROOT_PASSWORD = 'bench-pass-1';

/** Signs in to a bench Tollway as root: the headers of a management API call (JSON body, session, user id). */
export async function benchRootHeaders(base: string): Promise<Record<string, string>> {
  const login = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: BENCH_ROOT_PASSWORD }),
  });
  return {
    'content-type': 'application/json',
    cookie: login.headers.get('set-cookie')!.split(';')[0]!,
    'new-api-user': '1',
  };
}
export const chatBody = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] });
export const streamBody = JSON.stringify({
  model: 'gpt-4o-mini',
  stream: true,
  messages: [{ role: 'user', content: 'Say hello.' }],
});

/**
 * Tollway with one mock channel and an unlimited token; `nodeArgs` go before the entry (profiling flags);
 * `bundle` runs another build (a baseline revision) instead of the current one; `extraEnv` adds settings; `node`
 * is the Node.js binary that runs it (the bench's own by default).
 */
export async function startTollway(
  mockUrl: string,
  nodeArgs: string[] = [],
  bundle?: string,
  extraEnv: Record<string, string> = {},
  node = process.execPath,
): Promise<{ target: Target; proc: Proc }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-bench-'));
  const port = await freePort();
  const env = {
    PORT: String(port),
    SQLITE_PATH: path.join(dir, 'tollway.db'),
    SESSION_SECRET: 'bench-secret-0123456789abcdef0123',
    LOG_LEVEL: 'info',
    WEB_DIST: '/nonexistent',
    ...extraEnv,
  };
  // The production bundle, as `npm start` runs it (rebuilt first when the sources are newer).
  if (!bundle && serverIsStale()) await buildServer();
  const proc = await start(...proxyCommand(node, [...nodeArgs, bundle ?? serverBundle]), env, /tollway started/);
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, url: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(base + url, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const j = (await r.json()) as { success: boolean; message: string };
    if (!j.success) throw new Error(`${url}: ${j.message}`);
    return r;
  };
  await call('POST', '/api/setup', {
    username: 'root',
    password: BENCH_ROOT_PASSWORD,
    confirmPassword: BENCH_ROOT_PASSWORD,
  });
  const login = await call('POST', '/api/user/login', { username: 'root', password: BENCH_ROOT_PASSWORD });
  const auth = { cookie: login.headers.get('set-cookie')!.split(';')[0]!, 'new-api-user': '1' };
  await call(
    'POST',
    '/api/channel/',
    {
      mode: 'single',
      channel: { name: 'mock', type: 1, key: 'bench-key', base_url: mockUrl, models: 'gpt-4o-mini', group: 'default' },
    },
    auth,
  );
  await call('PUT', '/api/user/', { id: 1, quota: 1_000_000_000_000 }, auth);
  const key = 'b'.repeat(48);
  await insertToken(env, key);
  return {
    proc,
    target: {
      name: 'Tollway',
      url: base,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer sk-${key}` },
    },
  };
}

const TOKEN_INSERT =
  "INSERT INTO tokens (user_id, key, status, name, created_time, expired_time, remain_quota, unlimited_quota, model_limits, allow_ips, \"group\") VALUES (1, ?, 1, 'bench', 0, -1, 0, 1, '', '', '')";

/** The bench's unlimited token, written straight into the database Tollway runs on (SQL_DSN: PostgreSQL, else SQLite). */
async function insertToken(env: Record<string, string>, key: string): Promise<void> {
  if (env.SQL_DSN) {
    const pg = new Client({ connectionString: env.SQL_DSN });
    await pg.connect();
    await pg.query(TOKEN_INSERT.replace('?', '$1'), [key]).finally(() => pg.end());
    return;
  }
  const db = new Database(env.SQLITE_PATH);
  db.prepare(TOKEN_INSERT).run(key);
  db.close();
}

export const anthropicBody = JSON.stringify({
  model: 'gpt-4o-mini',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Say hello.' }],
});
export const anthropicStreamBody = JSON.stringify({
  model: 'gpt-4o-mini',
  max_tokens: 64,
  stream: true,
  messages: [{ role: 'user', content: 'Say hello.' }],
});

/** The same Tollway, called with Anthropic's API: converted to the OpenAI upstream and back (streamed: event by event). */
export const anthropicTarget = (t: Target, streamed = false): Target => ({
  name: `Tollway, Anthropic in → OpenAI upstream${streamed ? ', streamed' : ''}`,
  url: t.url,
  path: '/v1/messages',
  headers: { 'x-api-key': t.headers.authorization!.slice(7), 'anthropic-version': '2023-06-01' },
});

export async function startPortkey(mockUrl: string): Promise<{ target: Target; proc: Proc }> {
  const port = await freePort();
  const bin = path.join(ROOT, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  const proc = await start(process.execPath, [bin, `--port=${port}`, '--headless'], {}, /Ready for connections/);
  const target: Target = {
    name: 'Portkey gateway',
    url: `http://127.0.0.1:${port}`,
    path: '/v1/chat/completions',
    headers: {
      authorization: 'Bearer bench-key',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${mockUrl}/v1`,
    },
  };
  return { target, proc };
}

/**
 * The bare Node.js proxy (bench/node-floor-proxy.mjs: node:http in, undici out, nothing else) in its own process:
 * the most any one Node.js process relays with the stack Tollway uses, its ceiling.
 */
export async function startFloorProxy(mockUrl: string): Promise<{ target: Target; proc: Proc }> {
  const port = await freePort();
  const proc = await start(
    ...proxyCommand(process.execPath, [
      ...(process.env.FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean),
      path.join(ROOT, 'bench/node-floor-proxy.mjs'),
    ]),
    { PORT: String(port), UPSTREAM_URL: mockUrl },
    /floor proxy listening/,
  );
  const target: Target = {
    name: 'Bare Node.js proxy (node:http in, undici out)',
    url: `http://127.0.0.1:${port}`,
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer bench-key' },
  };
  return { target, proc };
}

/** The mock OpenAI upstream in its own process. */
export async function startMock(): Promise<{ url: string; proc: Proc }> {
  const proc = await start(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/mock-server.ts')],
    {},
    /http:\/\/127\.0\.0\.1:\d+/,
  );
  return { proc, url: /http:\/\/127\.0\.0\.1:\d+/.exec(proc.output())![0] };
}
