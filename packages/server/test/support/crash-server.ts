import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase, type DialectName, type Db } from '../../src/db/connect.js';
import type { Accounts } from './crash-audit.js';
import type { TokenKind } from './crash-load.js';
import { createTestDatabase } from './databases.js';
import { freePort, runServer, type ServerProcess } from './process.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from './redis.js';
import { tokenRow } from './token-row.js';

/** The data one server keeps across its restarts: database, data folder (journal), Redis prefix. */
export interface CrashBackend {
  dialect: DialectName;
  db: Db;
  dir: string;
  redis?: { url: string; prefix: string };
  /** The server's environment (PORT added per start). */
  env: Record<string, string>;
  /** Drops the database and the Redis keys, removes the folder. */
  drop(): Promise<void>;
}

const SESSION_SECRET = 'crash-test-session-secret-0123456789abcdef';

/** SQLite in a temporary folder; PostgreSQL with Redis; MariaDB; each with a data folder of its own. */
export async function openBackend(dialect: DialectName): Promise<CrashBackend> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tollway-crash-${dialect}-`));
  const base = { SESSION_SECRET, WEB_DIST: '/nonexistent' };
  if (dialect === 'sqlite') {
    const file = path.join(dir, 'tollway.db');
    const db = await connectDatabase('', file);
    const drop = async () => {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    return { dialect, db, dir, env: { ...base, SQLITE_PATH: file }, drop };
  }
  const database = await createTestDatabase(dialect);
  const redis = dialect === 'postgres' ? { url: TEST_REDIS, prefix: newRedisPrefix() } : undefined;
  const env = {
    ...base,
    SQL_DSN: database.dsn,
    DATA_DIR: dir,
    ...(redis ? { REDIS_CONN_STRING: redis.url, REDIS_KEY_PREFIX: redis.prefix } : {}),
  };
  const drop = async () => {
    await database.drop();
    if (redis) await dropRedisKeys(redis.prefix);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { dialect, db: database.db, dir, redis, env, drop };
}

/** Starts the server on a fresh port over the backend's data. */
export async function startOn(b: CrashBackend): Promise<{ server: ServerProcess; base: string }> {
  const port = await freePort();
  const server = runServer({ ...b.env, PORT: String(port) });
  return { server, base: `http://127.0.0.1:${port}` };
}

export interface Pricing {
  model: string;
  modelRatio: number;
  completionRatio: number;
}

export interface Provisioned {
  accounts: Accounts;
  keys: Record<TokenKind, string>;
}

/**
 * Through the API: the root account, the model's ratios, a channel to the mock and the root's quota; the two
 * tokens (one limited to `tokenQuota`, one unlimited) inserted into the database, or created through the API with
 * `tokensByApi` (a server with CRYPTO_SECRET stores keys sealed).
 */
export async function provision(
  base: string,
  db: Db,
  o: {
    upstream: string;
    channelKey: string;
    pricing: Pricing;
    userQuota: number;
    tokenQuota: number;
    tokensByApi?: boolean;
  },
): Promise<Provisioned> {
  let cookie = '';
  const call = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(base + url, {
      method,
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie, 'new-api-user': '1' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const j = (await r.json()) as { success: boolean; message: string; data?: unknown };
    if (!j.success) throw new Error(`${method} ${url}: ${j.message}`);
    return Object.assign(r, { data: j.data });
  };
  await call('POST', '/api/setup', { username: 'root', password: 'root-pass-123', confirmPassword: 'root-pass-123' });
  cookie = (await call('POST', '/api/user/login', { username: 'root', password: 'root-pass-123' })).headers
    .get('set-cookie')!
    .split(';')[0]!;
  const { model, modelRatio, completionRatio } = o.pricing;
  await call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [model]: modelRatio }) });
  await call('PUT', '/api/option/', { key: 'CompletionRatio', value: JSON.stringify({ [model]: completionRatio }) });
  await call('POST', '/api/channel/', {
    mode: 'single',
    channel: { name: 'crash', type: 1, key: o.channelKey, base_url: o.upstream, models: model, group: 'default' },
  });
  await call('PUT', '/api/user/', { id: 1, quota: o.userQuota });
  const channel = await db.kysely
    .selectFrom('channels')
    .select('id')
    .where('name', '=', 'crash')
    .executeTakeFirstOrThrow();
  const keys = { limited: crypto.randomBytes(24).toString('hex'), unlimited: crypto.randomBytes(24).toString('hex') };
  const tokens = { limited: 0, unlimited: 0 };
  for (const kind of ['limited', 'unlimited'] as const) {
    if (o.tokensByApi) {
      const body = {
        name: `crash-${kind}`,
        remain_quota: kind === 'limited' ? o.tokenQuota : 0,
        unlimited_quota: kind === 'unlimited',
      };
      const [made] = (await call('POST', '/api/token/', body)).data as { id: number; key: string }[];
      [keys[kind], tokens[kind]] = [made!.key, made!.id];
      continue;
    }
    await db.kysely
      .insertInto('tokens')
      .values(
        tokenRow(keys[kind], {
          name: `crash-${kind}`,
          created_time: Math.floor(Date.now() / 1000),
          remain_quota: kind === 'limited' ? o.tokenQuota : 0,
          unlimited_quota: kind === 'limited' ? 0 : 1,
          rate_limit_count: 0,
          rate_limit_success: 0,
        }),
      )
      .execute();
    tokens[kind] = (
      await db.kysely.selectFrom('tokens').select('id').where('key', '=', keys[kind]).executeTakeFirstOrThrow()
    ).id;
  }
  return { accounts: { userId: 1, channelId: channel.id, tokens }, keys };
}
