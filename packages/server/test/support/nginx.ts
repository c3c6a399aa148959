import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Debian's nginx package (`.ci/run` installs it). */
export const NGINX = '/usr/sbin/nginx';
const START_TIMEOUT_MS = 10_000;
const POLL_MS = 50;
const TEMP_PATHS = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];

/** `host:port` of every server line in the config's upstream blocks, in order. */
export function upstreamServers(conf: string): string[] {
  const out: string[] = [];
  for (const block of conf.matchAll(/upstream\s+\S+\s*\{([^}]*)\}/g)) {
    for (const m of block[1]!.matchAll(/^\s*server\s+(\S+?)[\s;]/gm)) out.push(m[1]!);
  }
  return out;
}

/** The value of a directive wherever it appears (`proxy_buffering` → ['off']). */
export function directiveValues(conf: string, name: string): string[] {
  return [...conf.matchAll(new RegExp(`^\\s*${name}\\s+([^;]*);`, 'gm'))].map((m) => m[1]!.trim());
}

function replaceOnce(text: string, pattern: RegExp, by: string): string {
  const hits = text.match(
    new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`),
  );
  if (hits?.length !== 1) throw new Error(`nginx.conf: expected one match of ${pattern}, found ${hits?.length ?? 0}`);
  return text.replace(pattern, by);
}

/**
 * deploy/nginx.conf for a loopback run: the upstream hosts become 127.0.0.1 ports, the listen address a loopback
 * port, pid and logs go to `dir`. DNS re-resolution (`resolver`, `resolve`: Docker's DNS, and nginx ≥ 1.27.3) is
 * dropped; every other directive stays as written.
 */
export function loopbackConfig(
  conf: string,
  o: { dir: string; listenPort: number; upstreams: Record<string, number> },
): string {
  let out = conf;
  for (const [hostPort, port] of Object.entries(o.upstreams)) {
    out = replaceOnce(
      out,
      new RegExp(`^(\\s*server\\s+)${hostPort.replace(/[.]/g, '\\.')}\\s+resolve\\b`, 'm'),
      `$1127.0.0.1:${port}`,
    );
  }
  out = replaceOnce(out, /^\s*resolver\s+[^;]*;\n/m, '');
  out = replaceOnce(out, /^(\s*)listen\s+80;/m, `$1listen 127.0.0.1:${o.listenPort};`);
  out = replaceOnce(out, /^pid\s+[^;]*;/m, `pid ${o.dir}/nginx.pid;`);
  out = replaceOnce(out, /^error_log\s+\S+/m, `error_log ${o.dir}/error.log`);
  out = replaceOnce(out, /^(\s*)access_log\s+\S+/m, `$1access_log ${o.dir}/access.log`);
  const temps = TEMP_PATHS.map((t) => `    ${t}_temp_path ${o.dir}/${t}_temp;`).join('\n');
  return replaceOnce(out, /^http\s*\{\n/m, `http {\n${temps}\n`);
}

export interface NginxProcess {
  child: ChildProcess;
  url: string;
  /** Lines of the access log written so far. */
  accessLog(): string[];
  errorLog(): string;
  stop(): Promise<void>;
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** Checks the config (`nginx -t`) and runs nginx in the foreground, as a child, from a temporary prefix. */
export async function startNginx(conf: (dir: string) => string, listenPort: number): Promise<NginxProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-nginx-'));
  // Worker processes run as an unprivileged user when started by root: they must reach the temp folders.
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'nginx.conf');
  fs.writeFileSync(file, conf(dir));
  const args = ['-p', dir, '-c', file, '-e', path.join(dir, 'error.log')];
  const test = spawnSync(NGINX, [...args, '-t'], { encoding: 'utf8' });
  if (test.status !== 0) throw new Error(`nginx -t: ${test.stderr}`);
  const child = spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const read = (name: string) =>
    fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : '';
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await accepts(listenPort))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${read('error.log')}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return {
    child,
    url: `http://127.0.0.1:${listenPort}`,
    accessLog: () => read('access.log').split('\n').filter(Boolean),
    errorLog: () => read('error.log'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
