import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  COMPOSE_COMMAND,
  missingServices,
  NETWORK_SERVICES,
  preflight,
  TEST_SERVICES_COMPOSE,
} from '../../../../scripts/test-services.mjs';
import { filesNeedingAService } from '../../../../scripts/test-sqlite.mjs';
import { freePort } from '../support/process.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');
/** The preflight answers within its probe timeout; a refused port answers at once. */
const PREFLIGHT_TIMEOUT_MS = 20_000;

/** The environment of a machine without the test services: each address a closed port (free: bound, then closed), no Chromium. */
async function bareMachine(): Promise<Record<string, string>> {
  const [pg, my, redis] = [await freePort(), await freePort(), await freePort()];
  return {
    TEST_PG_URL: `postgres://postgres@127.0.0.1:${pg}/test`,
    TEST_MYSQL_URL: `mysql://root@127.0.0.1:${my}/test`,
    TEST_REDIS_URL: `redis://127.0.0.1:${redis}`,
    CHROMIUM_PATH: path.join(REPO_ROOT, 'no-such-chromium'),
  };
}

describe('npm test preflight', () => {
  it('names each missing service with its address and variable, then the compose command and the SQLite tiers', async () => {
    const env = await bareMachine();
    let written = '';
    expect(await preflight(env, (t) => (written += t))).toBe(false);
    const pgPort = new URL(env.TEST_PG_URL!).port;
    expect(written).toContain(`PostgreSQL at 127.0.0.1:${pgPort} (TEST_PG_URL)`);
    expect(written).toContain(`MariaDB at 127.0.0.1:${new URL(env.TEST_MYSQL_URL!).port} (TEST_MYSQL_URL)`);
    expect(written).toContain(`Redis at 127.0.0.1:${new URL(env.TEST_REDIS_URL!).port} (TEST_REDIS_URL)`);
    expect(written).toContain(`Chromium: no program at ${env.CHROMIUM_PATH} (CHROMIUM_PATH)`);
    expect(written).toContain(COMPOSE_COMMAND);
    expect(written).toContain('npm run test:sqlite');
  });

  it('does not name a service that answers', async () => {
    const srv = net.createServer((s) => s.destroy());
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const { port } = srv.address() as net.AddressInfo;
    try {
      const missing = await missingServices({ ...(await bareMachine()), TEST_REDIS_URL: `redis://127.0.0.1:${port}` });
      expect(missing.some((m) => m.startsWith('Redis'))).toBe(false);
      expect(missing.some((m) => m.startsWith('PostgreSQL'))).toBe(true);
    } finally {
      srv.close();
    }
  });

  it('stops `npm test` before any check or test runs, with exit status 1', async () => {
    const res = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/test.mjs')], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', CI: 'true', ...(await bareMachine()) },
      encoding: 'utf8',
      timeout: PREFLIGHT_TIMEOUT_MS,
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('npm test: stopped before running anything');
    expect(res.stdout).not.toContain('== ');
  });

  it("has a compose file that publishes each service on the loopback port and database the tests' defaults use", () => {
    const compose = parse(fs.readFileSync(path.join(REPO_ROOT, TEST_SERVICES_COMPOSE), 'utf8')) as {
      services: Record<string, { ports?: string[]; environment?: Record<string, string> }>;
    };
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    for (const service of NETWORK_SERVICES) {
      const url = new URL(service.defaultUrl);
      expect(published).toContain(`${url.hostname}:${url.port}:${url.port}`);
    }
    expect(compose.services.postgres!.environment).toMatchObject({
      POSTGRES_DB: 'test',
      POSTGRES_HOST_AUTH_METHOD: 'trust',
    });
    expect(compose.services.mariadb!.environment).toMatchObject({
      MARIADB_DATABASE: 'test',
      MARIADB_ALLOW_EMPTY_ROOT_PASSWORD: '1',
    });
  });
});

describe('npm run test:sqlite', () => {
  it('leaves out the integration files that reach PostgreSQL, MariaDB or Redis whatever TEST_DIALECTS says', () => {
    const left = filesNeedingAService();
    const dir = 'packages/server/test/integration';
    // Two nodes on PostgreSQL and Redis; SQLite with Redis; the Redis ledger; a PostgreSQL database by name.
    // The directory sign-in starts slapd.
    for (const f of ['multi-node', 'health', 'redis-ledger', 'shutdown-streams', 'ldap-login'])
      expect(left).toContain(`${dir}/${f}.test.ts`);
    // SQLite alone when TEST_DIALECTS=sqlite.
    for (const f of ['relay-openai', 'billing', 'log-output']) expect(left).not.toContain(`${dir}/${f}.test.ts`);
  });
});
