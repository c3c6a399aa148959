import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Role } from '@tollway/shared';
import { afterAll, beforeAll } from 'vitest';
import { createRuntime, type Runtime } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import type { AuthUser } from '../../src/core/auth-user.js';
import { createTestDatabase, type TestDatabase } from './databases.js';

/**
 * The service tier: the real runtime (migrations, options, services, the relay's writer) on a fresh SQLite
 * file, called without HTTP. Services are reached the way routes reach them (`<name>Of(ctx)`, `ctx.users`, ...).
 */
export interface ServiceContext {
  runtime: Runtime;
  readonly ctx: Runtime['ctx'];
  /** A new user with a unique name (role, group and quota as given); returned as the session's AuthUser. */
  user(opts?: { role?: number; group?: string; quota?: number }): Promise<AuthUser>;
}

let seq = 0;

/** Starts one runtime for the file (beforeAll) and closes it with its database (afterAll). */
export function useServiceContext(env: Record<string, string> = {}): ServiceContext {
  let runtime: Runtime | undefined;
  let database: TestDatabase | undefined;
  let dataDir = '';
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-service-'));
    const config = loadConfig({
      SESSION_SECRET: 'test-secret-0123456789abcdef0123456789',
      DATA_DIR: dataDir,
      WEB_DIST: '/nonexistent',
      ...env,
    });
    runtime = await createRuntime(config, pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), { db: database.db });
  });
  afterAll(async () => {
    await runtime?.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const started = () => {
    if (!runtime) throw new Error('the service context starts in beforeAll');
    return runtime;
  };
  return {
    get runtime() {
      return started();
    },
    get ctx() {
      return started().ctx;
    },
    async user(opts = {}) {
      const ctx = started().ctx;
      const username = `u${process.pid % 1000}_${++seq}`;
      const role = opts.role ?? Role.Common;
      const id = await ctx.users.create({
        username,
        password: 'password-123',
        role,
        group: opts.group,
        quota: opts.quota,
      });
      const row = await ctx.users.get(id);
      return { id, username, role, status: row.status, group: row.group };
    },
  };
}
