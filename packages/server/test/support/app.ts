import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { createRuntime, type Runtime } from '../../src/bootstrap.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { DialectName } from '../../src/db/connect.js';
import type { Router } from '../../src/http/route.js';
import { createTestDatabase, type TestDatabase } from './databases.js';

export interface TestApp {
  app: FastifyInstance;
  router: Router;
  registered: { method: string; url: string }[];
  runtime: Runtime;
  database: TestDatabase;
  config: Config;
  close(): Promise<void>;
}

/** A real server (real database of the given dialect, real services) driven through Fastify's inject. */
export async function startTestApp(
  dialect: DialectName,
  env: Record<string, string> = {},
  shared?: TestDatabase,
): Promise<TestApp> {
  const database = shared ?? (await createTestDatabase(dialect));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-data-'));
  const config = loadConfig({
    SESSION_SECRET: 'test-secret-0123456789abcdef0123456789',
    CRITICAL_RATE_LIMIT: '100000',
    DATA_DIR: dataDir,
    WEB_DIST: '/nonexistent',
    ...env,
  });
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const runtime = await createRuntime(config, log, { db: database.db });
  const { app, router, registered } = await buildApp(runtime.ctx);
  await app.ready();
  return {
    app,
    router,
    registered,
    runtime,
    database,
    config,
    async close() {
      await app.close();
      await runtime.close();
      if (!shared) await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface CallResult<T = unknown> {
  status: number;
  body: { success: boolean; message: string; data?: T };
  raw: LightMyRequestResponse;
}

/** A browser-like API client: keeps the session cookie and sends New-Api-User. */
export class Client {
  cookie = '';
  userId: number | undefined;
  accessToken: string | undefined;

  constructor(private readonly app: FastifyInstance) {}

  async call<T = unknown>(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<CallResult<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    if (this.accessToken) h.authorization = this.accessToken;
    if (this.userId !== undefined && !('new-api-user' in h)) h['new-api-user'] = String(this.userId);
    const raw = await this.app.inject({
      method: method as 'GET',
      url,
      headers: h,
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    const setCookie = raw.headers['set-cookie'];
    const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
    if (first?.startsWith('session=')) this.cookie = first.split(';')[0]!;
    let parsed: CallResult<T>['body'];
    try {
      parsed = raw.json();
    } catch {
      parsed = { success: false, message: raw.body };
    }
    return { status: raw.statusCode, body: parsed, raw };
  }

  async login(username: string, password: string): Promise<CallResult<{ id: number }>> {
    const res = await this.call<{ id: number }>('POST', '/api/user/login', { username, password });
    if (res.body.success) this.userId = res.body.data!.id;
    return res;
  }
}

export const ROOT = { username: 'root', password: 'root-pass-123' };

/** Runs setup and returns a client logged in as root. */
export async function setupRoot(app: FastifyInstance): Promise<Client> {
  const c = new Client(app);
  const res = await c.call('POST', '/api/setup', { ...ROOT, confirmPassword: ROOT.password });
  if (!res.body.success) throw new Error(`setup failed: ${res.body.message}`);
  const login = await c.login(ROOT.username, ROOT.password);
  if (!login.body.success) throw new Error(`root login failed: ${login.body.message}`);
  return c;
}

/** Creates a user through the admin API and returns a client logged in as that user. */
export async function createUserClient(
  app: FastifyInstance,
  admin: Client,
  username: string,
  role = 1,
  password = 'user-pass-123',
): Promise<Client> {
  const res = await admin.call('POST', '/api/user/', { username, password, display_name: username, role });
  if (!res.body.success) throw new Error(`create ${username} failed: ${res.body.message}`);
  const c = new Client(app);
  const login = await c.login(username, password);
  if (!login.body.success) throw new Error(`login ${username} failed: ${login.body.message}`);
  return c;
}
