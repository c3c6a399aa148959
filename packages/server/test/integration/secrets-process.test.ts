import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runServer, waitForStart } from '../support/process.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('the server process and secrets at rest', () => {
  it('creates the data folder 0700 and the SQLite files 0600; a missing or wrong CRYPTO_SECRET then stops it with one line naming CRYPTO_SECRET', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-secrets-'));
    dirs.push(dir);
    const dataDir = path.join(dir, 'nested', 'data');
    const dbPath = path.join(dataDir, 'tollway.db');
    const env = { SQLITE_PATH: dbPath, WEB_DIST: '/nonexistent' };
    const p = runServer({ ...env, PORT: String(await freePort()), CRYPTO_SECRET: 'process-test-secret-one' });
    await waitForStart(p);
    expect(modeOf(path.join(dir, 'nested'))).toBe(0o700);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(dbPath)).toBe(0o600);
    expect(modeOf(`${dbPath}-wal`)).toBe(0o600);
    expect(modeOf(`${dbPath}-shm`)).toBe(0o600);
    expect(modeOf(path.join(dataDir, 'session_secret'))).toBe(0o600);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);

    for (const [secret, reason] of [
      [undefined, /not set/],
      ['process-test-secret-two', /not the one|does not match/],
    ] as const) {
      const bad = runServer({ ...env, PORT: String(await freePort()), ...(secret ? { CRYPTO_SECRET: secret } : {}) });
      expect(await bad.exited).not.toBe(0);
      const lines = bad.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^tollway: CRYPTO_SECRET: /);
      expect(lines[0]).toMatch(reason);
      expect(bad.output()).not.toMatch(/\n\s+at /);
    }

    const again = runServer({ ...env, PORT: String(await freePort()), CRYPTO_SECRET: 'process-test-secret-one' });
    await waitForStart(again);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 60_000);
});
