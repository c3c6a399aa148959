// What `npm test` needs besides Node.js, checked before anything runs (scripts/test.mjs): PostgreSQL, MariaDB and
// Redis answering on the addresses the tests use, and the Chromium, nginx and slapd programs. A missing one stops the run
// at once with a message naming each, the one command that starts the services, and `npm run test:sqlite` (the
// tiers that need none of them). CI runs the same check: a missing service fails the run, nothing is skipped.
import fs from 'node:fs';
import net from 'node:net';

/** The Compose file that runs the test services on their default loopback ports. */
export const TEST_SERVICES_COMPOSE = 'deploy/test-services.compose.yaml';
export const COMPOSE_COMMAND = `docker compose -f ${TEST_SERVICES_COMPOSE} up -d`;
/** How long a service's port may take to accept a connection. */
const PROBE_TIMEOUT_MS = 1_500;

/**
 * Each service the suite reaches over TCP: the variable the tests read for its address (as in
 * packages/server/test/support/databases.ts and redis.ts) and the default address.
 */
export const NETWORK_SERVICES = [
  { name: 'PostgreSQL', variable: 'TEST_PG_URL', defaultUrl: 'postgres://postgres@127.0.0.1:5432/test', port: 5432 },
  { name: 'MariaDB', variable: 'TEST_MYSQL_URL', defaultUrl: 'mysql://root@127.0.0.1:3306/test', port: 3306 },
  { name: 'Redis', variable: 'TEST_REDIS_URL', defaultUrl: 'redis://127.0.0.1:6379', port: 6379 },
];

/**
 * Programs the browser, deployment and directory sign-in tests run (test/browser/harness.ts,
 * packages/server/test/support/nginx.ts, packages/server/test/support/slapd.ts).
 */
export const PROGRAMS = [
  { name: 'Chromium', variable: 'CHROMIUM_PATH', defaultPath: '/usr/bin/chromium', install: 'chromium' },
  { name: 'nginx', variable: undefined, defaultPath: '/usr/sbin/nginx', install: 'nginx' },
  { name: 'slapd', variable: undefined, defaultPath: '/usr/sbin/slapd', install: 'slapd' },
];

/** Resolves true when something accepts a TCP connection at host:port within the timeout. */
export function portAnswers(host, port, timeoutMs = PROBE_TIMEOUT_MS) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Each missing service or program, as one line of the message, e.g. "PostgreSQL at 127.0.0.1:5432 (TEST_PG_URL)". */
export async function missingServices(env = process.env) {
  const checks = NETWORK_SERVICES.map(async (s) => {
    const url = new URL(env[s.variable] || s.defaultUrl);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port) || s.port;
    return (await portAnswers(host, port)) ? undefined : `${s.name} at ${host}:${port} (${s.variable})`;
  });
  const programs = PROGRAMS.map((p) => {
    const file = (p.variable && env[p.variable]) || p.defaultPath;
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return undefined;
    } catch {
      return `${p.name}: no program at ${file}${p.variable ? ` (${p.variable})` : ''}`;
    }
  });
  return [...(await Promise.all(checks)), ...programs].filter((m) => m !== undefined);
}

/** The message printed when something is missing: what, how to start it all, and what runs without it. */
export function preflightMessage(missing) {
  const names = NETWORK_SERVICES.map((s) => s.name);
  const databases = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const packages = PROGRAMS.map((p) => p.install).join(' ');
  return [
    'npm test: stopped before running anything; the suite needs what is missing here:',
    ...missing.map((m) => `  - ${m}`),
    '',
    `Start ${databases} on their default ports in one command (Docker or Podman):`,
    `  ${COMPOSE_COMMAND}`,
    `and install the programs (Debian: apt-get install ${packages}; or point the variable at yours).`,
    'Without any of them, run the tiers that need none (unit, service, and the SQLite integration files):',
    '  npm run test:sqlite',
    '',
  ].join('\n');
}

/** Checks everything; writes the message and returns false when something is missing. */
export async function preflight(env = process.env, write = (text) => process.stderr.write(text)) {
  const missing = await missingServices(env);
  if (missing.length === 0) return true;
  write(preflightMessage(missing));
  return false;
}
