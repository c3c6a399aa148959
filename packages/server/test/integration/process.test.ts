import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runServer, waitForStart } from '../support/process.js';

/** The accept queue the server asks for (the kernel caps it at net.core.somaxconn). */
const ASKED_BACKLOG = 65_535;

/** The accept queue length of the socket listening on `port` (Send-Q of a listening socket in ss). */
const acceptQueueLength = (port: number): number =>
  Number(
    execFileSync('ss', ['-Hltn', `sport = :${port}`])
      .toString()
      .trim()
      .split(/\s+/)[2],
  );

const dirs: string[] = [];
const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-proc-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('the server process', () => {
  it.each([
    ['a malformed SQL_DSN', { SQL_DSN: 'oracle://nowhere/db' }, 'SQL_DSN'],
    ['an unreachable database', { SQL_DSN: 'postgres://postgres@127.0.0.1:1/nothing' }, 'SQL_DSN'],
    ['a bad PORT', { PORT: 'eighty' }, 'PORT'],
  ])('stops on %s with one clear line naming the variable', async (_label, env, variable) => {
    const p = runServer({ SQLITE_PATH: path.join(tmpDir(), 'x.db'), ...env });
    const code = await p.exited;
    expect(code).not.toBe(0);
    const lines = p.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^tollway: (invalid configuration: )?${variable}: `));
    expect(p.output()).not.toMatch(/\n\s+at /);
  });

  it('creates the SQLite folder, persists a generated session secret with a warning, and shuts down gracefully finishing in-flight requests', async () => {
    const dir = tmpDir();
    const dbPath = path.join(dir, 'nested', 'data', 'tollway.db');
    const port = await freePort();
    const p = runServer({ SQLITE_PATH: dbPath, PORT: String(port), WEB_DIST: '/nonexistent' });
    await waitForStart(p);
    expect(fs.existsSync(dbPath)).toBe(true);
    const secretFile = path.join(dir, 'nested', 'data', 'session_secret');
    expect(fs.readFileSync(secretFile, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    expect(p.output()).toContain('Multi-node deployments need one shared SESSION_SECRET');

    // Start a request whose body is still arriving, then ask the server to stop.
    const body = JSON.stringify({ username: 'nobody', password: 'whatever-pass' });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let response = '';
    socket.on('data', (d) => (response += d));
    socket.write(
      `POST /api/user/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    p.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    // New connections are refused while the in-flight request is still allowed to finish.
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => {
        s.destroy();
        resolve(false);
      });
      s.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    socket.write(body.slice(10));
    const code = await p.exited;
    // A wrong password is a refusal: HTTP 200 with success:false, as new-api answers it.
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toContain(
      '{"success":false,"message":"username or password is wrong, or the user has been banned"',
    );
    expect(code).toBe(0);
    expect(p.output()).toContain('shutdown complete');

    // A restart reuses the stored secret.
    const again = runServer({ SQLITE_PATH: dbPath, PORT: String(await freePort()), WEB_DIST: '/nonexistent' });
    await waitForStart(again);
    expect(again.output()).toContain('using the secret stored in the data folder');
    // Bursts of new connections wait in the kernel's accept queue: the longest it allows, not Node's default 511.
    expect(acceptQueueLength(again.port)).toBe(
      Math.min(ASKED_BACKLOG, Number(fs.readFileSync('/proc/sys/net/core/somaxconn', 'utf8'))),
    );
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });
});
