import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface Proc {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a process and resolves once its output matches `ready`. */
export function start(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  // BENCH_START_TIMEOUT_MS: more time to start on a machine busy with other work.
  timeoutMs = Number(process.env.BENCH_START_TIMEOUT_MS) || 60_000,
): Promise<Proc> {
  return new Promise((resolve, reject) => {
    let out = '';
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({
          child,
          output: () => out,
          stop: () =>
            new Promise((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${out}`)));
    const timer = setTimeout(() => reject(new Error(`timeout starting ${cmd}: ${out}`)), timeoutMs);
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * The command that runs a measured proxy (Tollway, the bare Node.js proxy): pinned to the cores in BENCH_PROXY_CPUS
 * (taskset's list, e.g. `1`) when set, so that it has a core of its own while the load generator and the mocks keep
 * the others (run the bench itself as `taskset -c 0 npm run bench`; its children inherit that core).
 */
export function proxyCommand(cmd: string, args: string[]): [string, string[]] {
  const cpus = process.env.BENCH_PROXY_CPUS;
  return cpus ? ['taskset', ['-c', cpus, cmd, ...args]] : [cmd, args];
}
