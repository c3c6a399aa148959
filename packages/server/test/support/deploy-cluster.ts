import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from './databases.js';
import {
  imageHealthCheck,
  NGINX_CONF,
  readCompose,
  serviceEnv,
  tollwayServices,
  volumeMounts,
} from './deploy-files.js';
import { loopbackConfig, startNginx, type NginxProcess } from './nginx.js';
import { freePort, runServer, waitForStart, type ServerProcess } from './process.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from './redis.js';

const HEALTH_CHECK_TIMEOUT_MS = 10_000;

/** One Tollway service of deploy/compose.yaml, run as a process on loopback. */
export interface ComposeNode {
  name: string;
  port: number;
  /** The environment the compose file gives the service, with its hosts, port and data volume made local. */
  env: Record<string, string>;
  server: ServerProcess;
}

/** deploy/compose.yaml on loopback: PostgreSQL and Redis of the machine, the nodes as processes, nginx in front. */
export interface ComposeCluster {
  nodes: ComposeNode[];
  nginx: NginxProcess;
  database: TestDatabase;
  /** Starts a node again on the same data, as the compose restart policy does after it died. */
  restart(node: ComposeNode): Promise<void>;
  /** SIGTERM to every node still running; their exit codes. */
  stopNodes(): Promise<(number | null)[]>;
  close(): Promise<void>;
}

/** Values for the compose file's variables (deploy/.env); the database password is unused (the DSN is local). */
function composeVariables(): Record<string, string> {
  return {
    POSTGRES_PASSWORD: 'unused',
    SESSION_SECRET: crypto.randomBytes(32).toString('hex'),
    CRYPTO_SECRET: crypto.randomBytes(32).toString('hex'),
  };
}

function expectHost(name: string, value: string | undefined, host: string): void {
  if (!value || new URL(value).hostname !== host)
    throw new Error(`compose: ${name} should reach the ${host} service, is ${value}`);
}

/**
 * A service's environment as the compose file writes it, with only what points at the compose network or the
 * container moved to this machine: SQL_DSN to a fresh database, REDIS_CONN_STRING to the test Redis (with a key
 * prefix of the run's own), DATA_DIR to a folder standing for the service's volume, PORT to a free port, HOST to
 * loopback.
 */
function localEnv(
  composeEnv: Record<string, string>,
  local: { dsn: string; redisPrefix: string; dataDir: string; port: number },
  mounts: { source: string; target: string }[],
): Record<string, string> {
  expectHost('SQL_DSN', composeEnv.SQL_DSN, 'postgres');
  expectHost('REDIS_CONN_STRING', composeEnv.REDIS_CONN_STRING, 'redis');
  if (!mounts.some((m) => m.target === composeEnv.DATA_DIR))
    throw new Error(`compose: DATA_DIR ${composeEnv.DATA_DIR} is not on a volume`);
  const moved = {
    SQL_DSN: local.dsn,
    REDIS_CONN_STRING: TEST_REDIS,
    REDIS_KEY_PREFIX: local.redisPrefix,
    DATA_DIR: local.dataDir,
    PORT: String(local.port),
  };
  // HOST: loopback stands for the container's own network.
  return { ...composeEnv, ...moved, HOST: '127.0.0.1' };
}

/** Runs the image's HEALTHCHECK command in a container whose PORT is `port`; its exit code. */
export function runHealthCheck(port: number | string): number | null {
  const [cmd, ...args] = imageHealthCheck();
  if (cmd !== 'node') throw new Error(`HEALTHCHECK runs ${cmd}`);
  return spawnSync(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    timeout: HEALTH_CHECK_TIMEOUT_MS,
  }).status;
}

export async function startComposeCluster(): Promise<ComposeCluster> {
  const compose = readCompose();
  const vars = composeVariables();
  const database = await createTestDatabase('postgres');
  const redisPrefix = newRedisPrefix();
  const dirs: string[] = [];
  const nodes: ComposeNode[] = [];
  let nginx: NginxProcess | undefined;
  const stopNodes = async () =>
    Promise.all(
      nodes.map(async (n) => {
        if (n.server.child.exitCode === null && n.server.child.signalCode === null) n.server.child.kill('SIGTERM');
        return n.server.exited;
      }),
    );
  const close = async () => {
    for (const n of nodes)
      if (n.server.child.exitCode === null && n.server.child.signalCode === null) n.server.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.server.exited));
    await nginx?.stop();
    await database.drop();
    await dropRedisKeys(redisPrefix);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  };
  try {
    for (const name of tollwayServices(compose)) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `tollway-${name}-`));
      dirs.push(dataDir);
      const port = await freePort();
      const env = localEnv(
        serviceEnv(compose, name, vars),
        { dsn: database.dsn, redisPrefix, dataDir, port },
        volumeMounts(compose.services[name]!),
      );
      nodes.push({ name, port, env, server: runServer(env) });
    }
    await Promise.all(nodes.map((n) => waitForStart(n.server)));
    const listenPort = await freePort();
    // The upstream names the services at the PORT the compose file gives them.
    const upstreams = Object.fromEntries(
      nodes.map((n) => [`${n.name}:${serviceEnv(compose, n.name, vars).PORT}`, n.port]),
    );
    const conf = fs.readFileSync(NGINX_CONF, 'utf8');
    nginx = await startNginx((dir) => loopbackConfig(conf, { dir, listenPort, upstreams }), listenPort);
  } catch (e) {
    await close();
    throw e;
  }
  return {
    nodes,
    nginx,
    database,
    restart: async (node) => {
      node.server = runServer(node.env);
      await waitForStart(node.server);
    },
    stopNodes,
    close,
  };
}
