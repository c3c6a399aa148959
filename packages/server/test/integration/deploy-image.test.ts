import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHealthCheck } from '../support/deploy-cluster.js';
import { execForm, lastOf, readDockerfile, REPO_ROOT } from '../support/deploy-files.js';
import { imageEnv, layOutImage } from '../support/image-layout.js';
import { freePort, waitForStart, type ServerProcess } from '../support/process.js';

/*
 * No Docker engine runs here, so the image's final stage is rebuilt as folders: what its COPY lines take (the
 * server's production packages as npm lists them, the bundle, the console), started with its CMD, ENV and
 * WORKDIR, its /data volume a temporary folder. Nothing else from the checkout is reachable from there.
 */

const CONSOLE_INDEX = path.join(REPO_ROOT, 'packages/web/dist/index.html');
const CONSOLE_BUILD_TIMEOUT_MS = 180_000;

describe("the image's final stage, laid out as folders", () => {
  const final = readDockerfile().at(-1)!;
  const dirs: string[] = [];
  let server: ServerProcess | undefined;
  beforeAll(() => {
    // The image carries the built console; `npm test` builds it first, a narrowed run may not have.
    if (!fs.existsSync(CONSOLE_INDEX))
      spawnSync('npm', ['run', 'build', '-w', '@tollway/web'], { cwd: REPO_ROOT, stdio: 'ignore' });
  }, CONSOLE_BUILD_TIMEOUT_MS);
  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await server?.exited;
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('starts from its CMD with only what the image holds, passes its HEALTHCHECK, keeps its data on the volume and serves the console', async () => {
    const tmp = (name: string) => {
      const d = fs.mkdtempSync(path.join(os.tmpdir(), `tollway-image-${name}-`));
      dirs.push(d);
      return d;
    };
    const [root, data] = [tmp('app'), tmp('data')];
    layOutImage(root);
    const workdir = lastOf(final, 'WORKDIR')!;
    const volume = lastOf(final, 'VOLUME')!;
    const inImage = (v: string) => v.replace(workdir, root).replace(new RegExp(`^${volume}(?=/|$)`), data);
    const port = await freePort();
    const env = {
      ...Object.fromEntries(Object.entries(imageEnv(final)).map(([k, v]) => [k, inImage(v)])),
      PORT: String(port),
      HOST: '127.0.0.1',
      PATH: process.env.PATH ?? '',
    };
    const [cmd, ...args] = execForm(lastOf(final, 'CMD')!);
    expect(cmd).toBe('node');

    let out = '';
    const child = spawn(process.execPath, args.map(inImage), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    server = {
      child,
      port,
      output: () => out,
      exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    };
    await waitForStart(server);
    expect(runHealthCheck(port), out).toBe(0);

    // The volume holds the SQLite file, the session secret and the journal.
    expect(fs.readdirSync(data).sort()).toEqual(expect.arrayContaining(['journal', 'session_secret', 'tollway.db']));
    // The console from the image's copy: every page leads to /setup, served by the built index.
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status, out).toBe(200);
    expect(new URL(page.url).pathname).toBe('/setup');
    const copied = path.join(root, path.relative(REPO_ROOT, CONSOLE_INDEX));
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(fs.readFileSync(copied, 'utf8'))![1]!;
    expect(await page.text()).toContain(script);
    expect((await fetch(`http://127.0.0.1:${port}${script}`)).status).toBe(200);

    child.kill('SIGTERM');
    expect(await server.exited, out.slice(-2000)).toBe(0);
  });
});
