import { afterAll, beforeAll } from 'vitest';
import type { DialectName } from '../../src/db/connect.js';
import { createUserClient, setupRoot, startTestApp, type Client, type TestApp } from './app.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { addToken, listen, setQuota } from './gateway.js';
import { startMockUpstream, type MockUpstream } from './mock-upstream.js';

/** A suite's running app: set up, root logged in, the admins and users asked for (in that order). */
export interface AppFixture {
  t: TestApp;
  root: Client;
  /** Role 10 users, created first, in the order named. */
  admins: Client[];
  /** Plain users, created after the admins, in the order named. */
  users: Client[];
}

export interface AppOptions {
  env?: Record<string, string>;
  admins?: string[];
  users?: string[];
  /** beforeAll's time limit in ms (vitest's default when absent). */
  timeout?: number;
}

/** A mock upstream started first, then an app listening on a real port, with a funded user when asked for. */
export interface GatewayFixture<M = MockUpstream> extends AppFixture {
  mock: M;
  /** http://127.0.0.1:<port> of the listening app. */
  base: string;
  /** The funded user (not in `users`); only with the `user` option. */
  user: Client;
  /** The funded user's token: its `sk-` key and id; only with the `user` option and a token. */
  key: string;
  tokenId: number;
}

export interface GatewayOptions<M> extends AppOptions {
  /** Username of a user created after the admins and users, given `quota` (when set) and a token. */
  user?: string;
  quota?: number;
  /** Options of that user's token (default: unlimited); false: no token. */
  token?: Parameters<typeof addToken>[2] | false;
  /** Starts the upstream mock (default: startMockUpstream()). */
  mock?: () => Promise<M>;
}

async function openApp(dialect: DialectName, opts: AppOptions, into: Partial<AppFixture>): Promise<void> {
  into.t = await startTestApp(dialect, opts.env);
  into.root = await setupRoot(into.t.app);
  into.admins = [];
  for (const name of opts.admins ?? []) into.admins.push(await createUserClient(into.t.app, into.root, name, 10));
  into.users = [];
  for (const name of opts.users ?? []) into.users.push(await createUserClient(into.t.app, into.root, name));
}

/**
 * The suite's app on `dialect`, started in beforeAll and closed in afterAll. The returned object is filled in
 * beforeAll (read it in hooks and tests, not while collecting); `ready` runs once it is.
 */
export function useApp(dialect: DialectName, opts: AppOptions = {}, ready?: (app: AppFixture) => unknown): AppFixture {
  const app: Partial<AppFixture> = {};
  beforeAll(async () => {
    await openApp(dialect, opts, app);
    await ready?.(app as AppFixture);
  }, opts.timeout);
  afterAll(async () => app.t?.close());
  return app as AppFixture;
}

/**
 * Like useApp, with a mock upstream started first, the funded user and its token when `user` is named, and the
 * app listening; `ready` adds the channels and options. The app is closed before the mock.
 */
export function useGateway<M extends { close(): Promise<void> } = MockUpstream>(
  dialect: DialectName,
  opts: GatewayOptions<M>,
  ready?: (gw: GatewayFixture<M>) => unknown,
): GatewayFixture<M> {
  const gw: Partial<GatewayFixture<M>> = {};
  beforeAll(async () => {
    gw.mock = await (opts.mock ?? (startMockUpstream as unknown as () => Promise<M>))();
    await openApp(dialect, opts, gw);
    if (opts.user !== undefined) {
      gw.user = await createUserClient(gw.t!.app, gw.root!, opts.user);
      if (opts.quota !== undefined) await setQuota(gw.root!, gw.user.userId!, opts.quota);
      if (opts.token !== false) {
        const token = await addToken(gw.t!, gw.user.userId!, opts.token ?? {});
        gw.key = token.key;
        gw.tokenId = token.id;
      }
    }
    gw.base = await listen(gw.t!);
    await ready?.(gw as GatewayFixture<M>);
  }, opts.timeout);
  afterAll(async () => {
    await gw.t?.close();
    await gw.mock?.close();
  });
  return gw as GatewayFixture<M>;
}

/**
 * A log database of `dialect` for LOG_SQL_DSN: created in beforeAll, dropped in afterAll. The returned env gets
 * LOG_SQL_DSN once it exists; pass it to the suite's app (useApp/useGateway read it in their own beforeAll).
 */
export function useLogDatabaseEnv(dialect: DialectName): Record<string, string> {
  const env: Record<string, string> = {};
  let logDatabase: TestDatabase | undefined;
  beforeAll(async () => {
    logDatabase = await createTestDatabase(dialect);
    env.LOG_SQL_DSN = logDatabase.dsn;
  });
  afterAll(async () => logDatabase?.drop());
  return env;
}
