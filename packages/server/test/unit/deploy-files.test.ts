import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COMPOSE_FILE,
  execForm,
  imageHealthCheck,
  interpolate,
  lastOf,
  NGINX_CONF,
  readCompose,
  readDockerfile,
  REPO_ROOT,
  serviceEnv,
  tollwayServices,
  volumeMounts,
} from '../support/deploy-files.js';
import { directiveValues, upstreamServers } from '../support/nginx.js';

/** The Dockerfile, deploy/compose.yaml and deploy/nginx.conf agree with each other, the README and `npm start`. */

const VARS = {
  POSTGRES_PASSWORD: 'pg-pass',
  SESSION_SECRET: 'session-secret-value',
  CRYPTO_SECRET: 'crypto-secret-value',
};
/** The server's default SHUTDOWN_TIMEOUT, seconds (README, configuration). */
const DEFAULT_SHUTDOWN_TIMEOUT_S = 25;
const RECORD_SPAWN = path.join(REPO_ROOT, 'packages/server/test/support/record-spawn.mjs');

/** Names in the environment reference's tables (docs/install/environment.md, which was the README's table). */
function documentedVariables(): Set<string> {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'docs/install/environment.md'), 'utf8');
  return new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!));
}

/** What `npm start -- --no-build` spawns (scripts/start.mjs), caught by a preloaded module before it runs. */
function npmStartCommand(): { file: string; args: string[] } {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-start-')), 'spawn.json');
  const res = spawnSync('npm', ['start', '--silent', '--', '--no-build'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: `--import=${RECORD_SPAWN}`, RECORD_SPAWN_TO: out },
    encoding: 'utf8',
  });
  if (res.status !== 0 || !fs.existsSync(out)) throw new Error(`npm start: ${res.status} ${res.stderr}`);
  const recorded = JSON.parse(fs.readFileSync(out, 'utf8')) as { file: string; args: string[] };
  fs.rmSync(path.dirname(out), { recursive: true });
  return recorded;
}

describe('Dockerfile', () => {
  const stages = readDockerfile();
  const final = stages.at(-1)!;
  const workdir = lastOf(final, 'WORKDIR')!;

  it("runs exactly the command `npm start` runs in production (the built bundle), from the image's WORKDIR", () => {
    const { file, args } = npmStartCommand();
    expect(path.basename(file)).toBe('node');
    const inImage = ['node', ...args.map((a) => a.replaceAll(REPO_ROOT, workdir))];
    expect(execForm(lastOf(final, 'CMD')!)).toEqual(inImage);
    expect(lastOf(final, 'ENTRYPOINT')).toBeUndefined();
  });

  it('is multi-stage on one Node image; the runtime holds the bundle, the console, the docs and run-time packages only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(new Set(stages.map((s) => s.from).filter((f) => f.startsWith('node:')))).toEqual(new Set([final.from]));
    expect(final.from).toMatch(/^node:\$\{NODE_VERSION\}-slim$/);
    const copies = final.instructions.filter((i) => i.op === 'COPY').map((i) => i.args);
    expect(copies.every((c) => c.startsWith('--from='))).toBe(true);
    const sources = copies.map((c) => c.split(' ')[1]!.replace(`${workdir}/`, '')).sort();
    expect(sources).toEqual([
      'docs',
      'node_modules',
      'packages/server/dist',
      'packages/server/node_modules',
      'packages/web/dist',
    ]);
    // The run-time packages are installed without dev dependencies.
    const deps = stages.find((s) =>
      copies.some((c) => c.startsWith(`--from=${s.name} `) && c.includes('node_modules')),
    )!;
    expect(
      deps.instructions.some((i) => i.op === 'RUN' && /npm ci --omit=dev --workspace=@tollway\/server/.test(i.args)),
    ).toBe(true);
  });

  it('runs as an unprivileged user, keeps its data on a volume, and checks /healthz', () => {
    const user = lastOf(final, 'USER');
    expect(user).toBeTruthy();
    expect(['root', '0']).not.toContain(user!.split(':')[0]);
    const env = final.instructions
      .filter((i) => i.op === 'ENV')
      .map((i) => i.args)
      .join(' ');
    const dataDir = /DATA_DIR=(\S+)/.exec(env)?.[1];
    expect(lastOf(final, 'VOLUME')).toBe(dataDir);
    expect(/SQLITE_PATH=(\S+)/.exec(env)?.[1]).toBe(`${dataDir}/tollway.db`);
    const cmd = imageHealthCheck();
    expect(cmd[0]).toBe('node');
    expect(cmd.join(' ')).toContain("/healthz'");
  });

  it('leaves installed packages, builds, data and secrets out of the build context', () => {
    const ignored = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['**/node_modules', '**/dist', 'data', '.env', '**/.env', '.git', 'deploy'])
      expect(ignored).toContain(entry);
  });
});

describe('deploy/compose.yaml', () => {
  const compose = readCompose();
  const nodes = tollwayServices(compose);
  const envs = nodes.map((n) => serviceEnv(compose, n, VARS));

  it('parses into two Tollway nodes, PostgreSQL, Redis and nginx', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['nginx', 'postgres', 'redis', 'tollway-a', 'tollway-b']);
    expect(nodes).toEqual(['tollway-a', 'tollway-b']);
    for (const n of nodes)
      expect(compose.services[n]).toMatchObject({ build: { context: '..' }, restart: 'unless-stopped', init: true });
  });

  it("lets a node's graceful stop run its whole SHUTDOWN_TIMEOUT before Docker kills it", () => {
    for (const [i, n] of nodes.entries()) {
      const grace = /^(\d+)s$/.exec(compose.services[n]!.stop_grace_period ?? '')?.[1];
      expect(Number(grace), n).toBeGreaterThan(Number(envs[i]!.SHUTDOWN_TIMEOUT ?? DEFAULT_SHUTDOWN_TIMEOUT_S));
    }
  });

  it('gives both nodes the same database, Redis, SESSION_SECRET and CRYPTO_SECRET, and refuses to start without them', () => {
    const pg = compose.services.postgres!.environment!;
    for (const env of envs) {
      const dsn = new URL(env.SQL_DSN!);
      expect({
        protocol: dsn.protocol,
        host: dsn.host,
        user: dsn.username,
        password: dsn.password,
        db: dsn.pathname,
      }).toEqual({
        protocol: 'postgres:',
        host: 'postgres:5432',
        user: pg.POSTGRES_USER,
        password: interpolate(String(pg.POSTGRES_PASSWORD), VARS),
        db: `/${pg.POSTGRES_DB}`,
      });
      expect(new URL(env.REDIS_CONN_STRING!).host).toBe('redis:6379');
      expect(env.SESSION_SECRET).toBe(VARS.SESSION_SECRET);
      expect(env.CRYPTO_SECRET).toBe(VARS.CRYPTO_SECRET);
      expect(env.TRUST_PROXY).toBe('true');
    }
    for (const missing of ['SESSION_SECRET', 'CRYPTO_SECRET', 'POSTGRES_PASSWORD']) {
      expect(() => serviceEnv(compose, nodes[0]!, { ...VARS, [missing]: '' })).toThrow(missing);
    }
    expect(envs.map((e) => e.NODE_TYPE).sort()).toEqual(['master', 'slave']);
    for (const n of nodes) {
      expect(compose.services[n]!.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    }
  });

  it("mounts each node's DATA_DIR on a named volume of its own", () => {
    const sources = nodes.map((n, i) => {
      const mount = volumeMounts(compose.services[n]!).find((m) => m.target === envs[i]!.DATA_DIR);
      expect(mount, n).toBeDefined();
      expect(Object.keys(compose.volumes ?? {})).toContain(mount!.source);
      return mount!.source;
    });
    expect(new Set(sources).size).toBe(nodes.length);
  });

  it('deploy/.env.example names every variable the compose file reads', () => {
    const text = fs.readFileSync(COMPOSE_FILE, 'utf8').replace(/^\s*#.*$/gm, '');
    const used = new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
    const example = fs.readFileSync(path.join(path.dirname(COMPOSE_FILE), '.env.example'), 'utf8');
    const listed = new Set([...example.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]!));
    expect(listed).toEqual(used);
  });

  it('sets only variables the environment reference documents', () => {
    const documented = documentedVariables();
    for (const env of envs) for (const name of Object.keys(env)) expect(documented, name).toContain(name);
  });

  it('puts nginx in front of both nodes with deploy/nginx.conf', () => {
    const nginx = compose.services.nginx!;
    const conf = volumeMounts(nginx).find((m) => m.target === '/etc/nginx/nginx.conf');
    expect(path.resolve(path.dirname(NGINX_CONF), conf!.source)).toBe(NGINX_CONF);
    expect(nginx.depends_on).toEqual(nodes);
    expect(nginx.ports).toEqual(['${TOLLWAY_HTTP_PORT:-3000}:80']);
    expect(upstreamServers(fs.readFileSync(NGINX_CONF, 'utf8'))).toEqual(nodes.map((n, i) => `${n}:${envs[i]!.PORT}`));
  });
});

describe('deploy/nginx.conf', () => {
  const conf = fs.readFileSync(NGINX_CONF, 'utf8');

  it('streams both ways and waits long for a slow answer', () => {
    expect(directiveValues(conf, 'proxy_buffering')).toEqual(['off']);
    expect(directiveValues(conf, 'proxy_request_buffering')).toEqual(['off']);
    expect(directiveValues(conf, 'proxy_http_version')).toEqual(['1.1']);
    expect(parseInt(directiveValues(conf, 'proxy_read_timeout')[0]!, 10)).toBeGreaterThanOrEqual(600);
    expect(directiveValues(conf, 'keepalive').map(Number)[0]).toBeGreaterThan(0);
  });

  it('fails over only before a request was sent, and never repeats a POST', () => {
    // No `non_idempotent`, no `http_5xx`: an answer or a request that reached a node is never sent again.
    expect(directiveValues(conf, 'proxy_next_upstream')).toEqual(['error timeout']);
  });

  it("overwrites X-Forwarded-For with the client's address (the nodes trust its left-most entry)", () => {
    expect(directiveValues(conf, 'proxy_set_header')).toContain('X-Forwarded-For $remote_addr');
  });
});
