import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

// The production bundle (scripts/server-build.mjs; `npm test` builds it before the tests run).
const MAIN = path.resolve(import.meta.dirname, '../../dist/main.mjs');

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  output(): string;
  exited: Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Runs the real server as `npm start` does (`node dist/main.mjs`) with the given environment. */
export function runServer(env: Record<string, string>): ServerProcess {
  let out = '';
  const child = spawn(process.execPath, [MAIN], {
    // WEB_DIST from the test's environment lets a run serve a console built elsewhere.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'info',
      ...(process.env.WEB_DIST ? { WEB_DIST: process.env.WEB_DIST } : {}),
      // The V8 code cache vitest.config.ts turns on: a server's start (about 3.5 s of CPU, mostly compiling its
      // modules) costs about a quarter less for every start after the first.
      ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, port: Number(env.PORT ?? 3000), output: () => out, exited };
}

/** Waits until the server logs that it started (or exits). */
export async function waitForStart(p: ServerProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (p.output().includes('tollway started')) return;
    if (p.child.exitCode !== null) throw new Error(`server exited: ${p.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not start: ${p.output()}`);
}
