import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const MAIN = path.join(ROOT, 'packages/server/dist/main.mjs');
const START = path.join(ROOT, 'scripts/start.mjs');
const POLL_MS = 50;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Date.now() when the process exited. */
  at: number;
}

export interface Spawned {
  child: ChildProcess;
  /** Everything read from stdout and stderr so far. */
  output(): string;
  exited: Promise<Exit>;
  /** Resolves once the process exited and its output was read to the end. */
  closed: Promise<void>;
  /** Closes this side of the stdout and stderr pipes: from now on the process writes into a broken pipe. */
  breakPipes(): void;
  /** Stops reading stdout and stderr while keeping the pipes open: they fill up and stay full. */
  stopReading(): void;
}

/** How the server is started: its bundle, `npm start`'s wrapper script, or `npm start` itself (npm, sh, wrapper). */
export type Launch = 'bundle' | 'wrapper' | 'npm';

/** The npm of the Node.js running the tests (its bin folder first on PATH). */
const NODE_BIN = path.dirname(process.execPath);

/**
 * Runs the server bundle (`node dist/main.mjs`), `npm start`'s wrapper around it (`node scripts/start.mjs
 * --no-build`, the bundle being built before the tests) or `npm start -- --no-build`, with stdout and stderr on pipes.
 */
export function spawnTollway(env: Record<string, string>, opts: { launch?: Launch } = {}): Spawned {
  const launch = opts.launch ?? 'bundle';
  const [command, args] =
    launch === 'npm'
      ? ['npm', ['start', '--', '--no-build']]
      : [process.execPath, launch === 'wrapper' ? [START, '--no-build'] : [MAIN]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'info',
      WEB_DIST: '/nonexistent',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (d: Buffer) => (out += d.toString());
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    child,
    output: () => out,
    exited,
    closed,
    breakPipes() {
      child.stdout!.destroy();
      child.stderr!.destroy();
    },
    stopReading() {
      for (const s of [child.stdout!, child.stderr!]) {
        s.off('data', collect);
        s.pause();
      }
    },
  };
}

/** Waits until the output contains `text`; throws if the process exits first or after `timeoutMs`. */
export async function waitForOutput(p: Spawned, text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!p.output().includes(text)) {
    if (p.child.exitCode !== null || p.child.signalCode !== null)
      throw new Error(`exited before "${text}": ${p.output()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs} ms: ${p.output()}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The pid the server logged at start (under the wrapper, the server's own, not the wrapper's). */
export function serverPid(p: Spawned): number {
  const line = p
    .output()
    .split('\n')
    .find((l) => l.includes('"tollway started"'));
  if (!line) throw new Error(`no start line: ${p.output()}`);
  return (JSON.parse(line) as { pid: number }).pid;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): state, parent pid, … */
function statFields(pid: number): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The parent's pid of a running process (Linux). */
export function parentPid(pid: number): number {
  return Number(statFields(pid)[1]);
}

/**
 * True while a process with this pid runs. An exited process left unreaped (a zombie: one re-parented to an init
 * that does not reap, as in some containers) counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return statFields(pid)[0] !== 'Z';
  } catch {
    // No /proc entry: it just went away.
    return false;
  }
}

/** Waits until the process is gone; returns false if it still runs after `timeoutMs`. */
export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/** True when nothing accepts connections at `base` any more. */
export async function refusesConnections(base: string): Promise<boolean> {
  try {
    await fetch(`${base}/api/status`, { signal: AbortSignal.timeout(2_000) });
    return false;
  } catch (err) {
    return (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
}

/** A set-up server with one channel to `upstreamUrl` (API key `channelKey`) and a funded user's token. */
export async function prepareRelay(base: string, upstreamUrl: string, channelKey: string): Promise<{ key: string }> {
  const json = async (method: string, url: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(base + url, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const j = (await r.json()) as { success: boolean; data?: unknown; message: string };
    if (!j.success) throw new Error(`${method} ${url}: ${j.message}`);
    return { r, j };
  };
  await json('POST', '/api/setup', { username: 'root', password: 'root-pass-123', confirmPassword: 'root-pass-123' });
  const login = await json('POST', '/api/user/login', { username: 'root', password: 'root-pass-123' });
  const auth = { cookie: login.r.headers.get('set-cookie')!.split(';')[0]!, 'new-api-user': '1' };
  await json(
    'POST',
    '/api/channel/',
    {
      mode: 'single',
      channel: { name: 'm', type: 1, key: channelKey, base_url: upstreamUrl, models: 'gpt-4o-mini', group: 'default' },
    },
    auth,
  );
  await json('PUT', '/api/user/', { id: 1, quota: 100_000_000 }, auth);
  const token = await json('POST', '/api/token/', { name: 'shutdown', unlimited_quota: true }, auth);
  return { key: (token.j.data as { key: string }[])[0]!.key };
}
