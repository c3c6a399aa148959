import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, runServer, waitForStart, type ServerProcess } from '../support/process.js';

/** The production bundle, as `npm start` runs it. */
const MAIN = path.resolve(import.meta.dirname, '../../dist/main.mjs');
/** util-linux's `script` (Debian's essential bsdutils) runs a command on a pseudo-terminal, as a person's shell does. */
const SCRIPT = '/usr/bin/script';
const START_TIMEOUT_MS = 30_000;

/** The first run's output: JSON lines for a pipe, readable lines at a terminal, each naming the page to open. */
describe('the log on standard output', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-log-output-'));
  const stops: (() => void)[] = [];
  afterEach(() => stops.splice(0).forEach((stop) => stop()));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const env = (port: number) => ({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: path.join(dir, String(port)),
    SESSION_SECRET: 'log-output-secret-0123456789abcdef',
  });

  it('is one JSON object a line when stdout is a pipe, the start line naming the setup page', async () => {
    const port = await freePort();
    const p: ServerProcess = runServer(env(port));
    stops.push(() => p.child.kill('SIGKILL'));
    await waitForStart(p);
    const lines = p.output().trim().split('\n');
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.find((r) => r.msg === 'tollway started')).toMatchObject({
      level: 30,
      open: `http://localhost:${port}/setup`,
      port,
      database: 'sqlite',
    });
  });

  it('is readable lines at a terminal, the start line saying which page to open', async () => {
    const port = await freePort();
    let out = '';
    const child = spawn(SCRIPT, ['-qfec', `"${process.execPath}" "${MAIN}"`, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'dumb', ...env(port) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Closing the terminal (script's end) hangs the server up: SIGHUP stops it.
    stops.push(() => child.kill('SIGTERM'));
    child.stdout.on('data', (d) => (out += d));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!out.includes('tollway started') && Date.now() < deadline && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 100));
    const lines = out.split(/\r?\n/).filter((l) => l.trim() !== '');
    const start = lines.find((l) => l.includes('tollway started'));
    expect(start, out).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO {2}tollway started — open http://localhost:${port}/setup {2}port=${port}`),
    );
    expect(
      lines.filter((l) => l.startsWith('{')),
      out,
    ).toEqual([]);
  });
});
