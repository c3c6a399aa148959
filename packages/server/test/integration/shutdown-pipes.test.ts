import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/process.js';
import {
  isAlive,
  parentPid,
  serverPid,
  spawnTollway,
  waitForOutput,
  waitGone,
  type Launch,
  type Spawned,
} from '../support/shutdown-server.js';

/** The grace period these servers get (SHUTDOWN_TIMEOUT, seconds). */
const GRACE_S = 5;
/** A clean stop with nothing in flight ends well before the deadline. */
const CLEAN_STOP_MS = 2_500;
/** Requests answered before the pipes stop being read: several times what a pipe holds in request log lines. */
const LOG_FLOOD_REQUESTS = 2_000;

/** Stopping never depends on stdout and stderr: a dead or stuck log reader cannot keep the process alive. */
describe('shutdown with broken or full output pipes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-shutdown-pipes-'));
  const running: Spawned[] = [];
  /** Processes below the spawned one (the wrapper and server under npm): killed too should a test fail. */
  const below: number[] = [];
  afterEach(() => {
    for (const p of running.splice(0))
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const pid of below.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const start = async (opts: { launch?: Launch; env?: Record<string, string> } = {}) => {
    const port = await freePort();
    const p = spawnTollway(
      {
        SQLITE_PATH: path.join(dir, `${port}.db`),
        PORT: String(port),
        SESSION_SECRET: 'shutdown-pipes-secret-0123456789abcdef',
        SHUTDOWN_TIMEOUT: String(GRACE_S),
        ...opts.env,
      },
      opts,
    );
    running.push(p);
    await waitForOutput(p, 'tollway started');
    return { p, base: `http://127.0.0.1:${port}`, pid: serverPid(p) };
  };
  /** SIGTERM: the process exits 0 well within the grace period. */
  const expectCleanStop = async (p: Awaited<ReturnType<typeof start>>['p']) => {
    const sent = Date.now();
    p.child.kill('SIGTERM');
    const exit = await p.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - sent).toBeLessThan(CLEAN_STOP_MS);
    return exit;
  };

  it('exits 0 promptly on SIGTERM after the reader of stdout and stderr went away', async () => {
    const { p } = await start();
    p.breakPipes();
    await expectCleanStop(p);
  });

  it('exits 0 promptly on SIGTERM while stdout is full and nobody reads it', async () => {
    const { p, base } = await start({ env: { LOG_REQUESTS: 'true' } });
    p.stopReading();
    // Each request logs two lines: far more than the pipe holds, so the output stays full.
    for (let i = 0; i < LOG_FLOOD_REQUESTS; i++) expect((await fetch(`${base}/api/status`)).status).toBe(200);
    await expectCleanStop(p);
  });

  it('npm start: SIGTERM to the wrapper with broken pipes stops the server and the wrapper, both 0', async () => {
    const { p, pid } = await start({ launch: 'wrapper' });
    expect(pid).not.toBe(p.child.pid);
    p.breakPipes();
    await expectCleanStop(p);
    expect(isAlive(pid)).toBe(false);
  });

  it('npm start: SIGHUP (the terminal or parent is gone) stops the wrapper and the server', async () => {
    const { p, pid } = await start({ launch: 'wrapper' });
    p.breakPipes();
    p.child.kill('SIGHUP');
    const exit = await p.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(await waitGone(pid, CLEAN_STOP_MS)).toBe(true);
  });

  it('npm start: a wrapper killed outright does not leave the server running orphaned', async () => {
    const { p, pid } = await start({ launch: 'wrapper' });
    p.breakPipes();
    p.child.kill('SIGKILL');
    expect(await p.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(await waitGone(pid, CLEAN_STOP_MS)).toBe(true);
  });

  it('npm start itself: SIGTERM to npm with broken pipes stops the wrapper and the server within the grace period', async () => {
    const { p, pid } = await start({ launch: 'npm' });
    // npm runs the wrapper through sh and passes the signal to sh alone, which dies of it without passing it on.
    const wrapper = parentPid(pid);
    below.push(pid, wrapper);
    expect(wrapper).not.toBe(p.child.pid);
    p.breakPipes();
    const sent = Date.now();
    p.child.kill('SIGTERM');
    await p.exited;
    // Timed from the signal: npm, the wrapper and the server are all gone well within the grace period.
    expect(await waitGone(wrapper, Math.max(0, CLEAN_STOP_MS - (Date.now() - sent)))).toBe(true);
    expect(await waitGone(pid, Math.max(0, CLEAN_STOP_MS - (Date.now() - sent)))).toBe(true);
    expect(Date.now() - sent).toBeLessThan(CLEAN_STOP_MS);
  });

  it('npm start itself: npm killed outright (sh left running) stops the wrapper and the server', async () => {
    const { p, pid } = await start({ launch: 'npm' });
    const wrapper = parentPid(pid);
    const sh = parentPid(wrapper);
    below.push(pid, wrapper, sh);
    expect(sh).not.toBe(p.child.pid);
    p.breakPipes();
    p.child.kill('SIGKILL');
    expect(await p.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(await waitGone(wrapper, CLEAN_STOP_MS)).toBe(true);
    expect(await waitGone(pid, CLEAN_STOP_MS)).toBe(true);
  });

  it('refuses a bad SHUTDOWN_TIMEOUT at start-up with exit 78', async () => {
    for (const bad of ['0', '-3', '2.5', 'soon']) {
      const port = await freePort();
      const p = spawnTollway({
        SQLITE_PATH: path.join(dir, `bad-${port}.db`),
        PORT: String(port),
        SHUTDOWN_TIMEOUT: bad,
      });
      running.push(p);
      expect((await p.exited).code).toBe(78);
      await p.closed;
      expect(p.output()).toContain(
        `tollway: invalid configuration: SHUTDOWN_TIMEOUT: must be whole seconds from 1 to 86400, got "${bad}"`,
      );
    }
  });
});
