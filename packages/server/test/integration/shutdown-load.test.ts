import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSqliteDriver } from '../../src/db/sqlite-driver.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockUpstream } from '../support/mock-upstream.js';
import { freePort, runServer, waitForStart } from '../support/process.js';

// better-sqlite3 of the line that runs on this Node.js.
const Database = await loadSqliteDriver();

/** SIGTERM while calls are in flight: every call the client saw succeed is logged and counted, nothing more. */
describe('SIGTERM during load', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-sigterm-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loses no log row or counter', async () => {
    const mock = await startMockUpstream({ record: false });
    mock.behaviors.set('slowish', { delayMs: 20 });
    const dbPath = path.join(dir, 'tollway.db');
    const port = await freePort();
    const server = runServer({
      SQLITE_PATH: dbPath,
      PORT: String(port),
      WEB_DIST: '/nonexistent',
      SESSION_SECRET: 'sigterm-test-secret-0123456789abcdef',
    });
    await waitForStart(server);
    const base = `http://127.0.0.1:${port}`;
    const json = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(base + url, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { r, j: (await r.json()) as { success: boolean; data?: unknown; message: string } };
    };
    await json('POST', '/api/setup', { username: 'root', password: 'root-pass-123', confirmPassword: 'root-pass-123' });
    const login = await json('POST', '/api/user/login', { username: 'root', password: 'root-pass-123' });
    const auth = { cookie: login.r.headers.get('set-cookie')!.split(';')[0]!, 'new-api-user': '1' };
    expect(
      (
        await json(
          'POST',
          '/api/channel/',
          {
            mode: 'single',
            channel: {
              name: 'm',
              type: 1,
              key: 'slowish',
              base_url: mock.url,
              models: 'gpt-4o-mini',
              group: 'default',
            },
          },
          auth,
        )
      ).j.success,
    ).toBe(true);
    expect((await json('PUT', '/api/user/', { id: 1, quota: 100_000_000 }, auth)).j.success).toBe(true);
    const key = 'k'.repeat(48);
    const side = new Database(dbPath);
    side
      .prepare(
        "INSERT INTO tokens (user_id, key, status, name, created_time, expired_time, remain_quota, unlimited_quota, model_limits, allow_ips, \"group\") VALUES (1, ?, 1, 'load', 0, -1, 0, 1, '', '', '')",
      )
      .run(key);
    side.close();

    let ok = 0;
    let stop = false;
    let completed = 0;
    const worker = async () => {
      while (!stop) {
        try {
          const r = await fetch(`${base}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
          });
          const body = await r.text();
          if (r.status === 200 && body.includes('Hello from the mock!')) ok++;
        } catch {
          // refused once the server stops accepting
          stop = true;
        }
        completed++;
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    while (completed < 150) await new Promise((r) => setTimeout(r, 10));
    server.child.kill('SIGTERM');
    await Promise.all(workers);
    expect(await server.exited).toBe(0);
    await mock.close();
    expect(ok).toBeGreaterThan(100);

    const db = new Database(dbPath, { readonly: true });
    const logs = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(quota), 0) AS q FROM logs WHERE type = 2').get() as {
      n: number;
      q: number;
    };
    const user = db.prepare('SELECT quota, used_quota, request_count FROM users WHERE id = 1').get() as {
      quota: number;
      used_quota: number;
      request_count: number;
    };
    const token = db.prepare('SELECT used_quota FROM tokens WHERE key = ?').get(key) as { used_quota: number };
    const channel = db.prepare('SELECT used_quota FROM channels').get() as { used_quota: number };
    db.close();
    expect(logs.n).toBe(ok);
    expect(user.request_count).toBe(ok);
    expect(user.used_quota).toBe(logs.q);
    expect(user.quota).toBe(100_000_000 - logs.q);
    expect(token.used_quota).toBe(logs.q);
    expect(channel.used_quota).toBe(logs.q);
    expect(fs.readdirSync(path.join(dir, 'journal'))).toEqual([]);
  });
});
