import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { freePort, runServer, waitForStart } from '../support/process.js';
import { expectRefused } from '../support/refusal.js';

const DAY_MS = 86_400_000;
/** Secrets of the test app that no stats answer may carry. */
const CRYPTO_SECRET = 'perf-panel-crypto-secret-0123456789abcdef';

interface Listing {
  log_dir: string;
  enabled: boolean;
  file_count: number;
  total_size: number;
  oldest_time?: string;
  newest_time?: string;
  files: { name: string; size: number; mod_time: string }[];
}

describe.each(dialects)('the performance panel on %s', (dialect) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-perf-'));
  const logDir = path.join(root, 'logs');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(logDir);
  fs.mkdirSync(outside);
  const app = useApp(dialect, {
    env: { LOG_DIR: logDir, CRYPTO_SECRET },
    admins: ['perf-admin'],
    users: ['perf-user'],
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /** A file of `size` bytes written `ageDays` ago. */
  function file(dir: string, name: string, size: number, ageDays: number) {
    const p = path.join(dir, name);
    fs.writeFileSync(p, 'x'.repeat(size));
    const t = new Date(Date.now() - ageDays * DAY_MS);
    fs.utimesSync(p, t, t);
    return p;
  }
  const list = async () => (await app.root.call<Listing>('GET', '/api/performance/logs')).body;
  const names = async () => (await list()).data!.files.map((f) => f.name);

  it("answers new-api's stats fields with this process's numbers, and no secret nor path", async () => {
    const res = await app.root.call<Record<string, Record<string, unknown>>>('GET', '/api/performance/stats');
    expect(res.body.success).toBe(true);
    const s = res.body.data!;
    const mem = s.memory_stats as Record<string, number>;
    for (const k of ['alloc', 'total_alloc', 'sys', 'num_goroutine']) expect(mem[k], k).toBeGreaterThan(0);
    expect(mem.sys).toBeGreaterThanOrEqual(mem.alloc!);
    expect(mem.num_gc).toBeGreaterThanOrEqual(0);
    expect(s.cache_stats).toMatchObject({ current_disk_usage_bytes: 0, disk_cache_max_bytes: 0, active_disk_files: 0 });
    expect(s.disk_cache_info).toEqual({ path: '', exists: false, file_count: 0, total_size: 0 });
    expect((s.disk_space_info as { total: number }).total).toBeGreaterThan(0);
    expect(s.config).toMatchObject({ disk_cache_enabled: false, disk_cache_path: '', monitor_enabled: false });
    expect(s.event_loop).toHaveProperty('delay_p99_ms');
    expect(s.database).toMatchObject({ dialect, separate_log_database: false });
    expect((s.database as { size_bytes: number }).size_bytes).toBeGreaterThan(0);
    if (dialect === 'sqlite') expect(s.database!.pool).toBeNull();
    else expect(s.database!.pool).toMatchObject({ max: 10, waiting: 0 });
    expect((s.database!.pool as { total: number } | null)?.total ?? 1).toBeGreaterThan(0);
    expect((s.process as { uptime_seconds: number }).uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(s.connections).toEqual({ open: expect.any(Number) });

    const text = JSON.stringify(res.body);
    const dsn = app.t.database.dsn;
    const forbidden = [CRYPTO_SECRET, app.t.config.sessionSecret, ROOT.password, app.t.config.dataDir, logDir];
    if (dsn) forbidden.push(dsn, ...[new URL(dsn).password].filter(Boolean));
    for (const secret of forbidden.filter((v): v is string => !!v))
      expect(text, 'no secret, DSN nor path').not.toContain(secret);
    expect(text).not.toMatch(/password|secret|dsn/i);
  });

  it('resets the counted statistics, runs a memory-reducing collection, and has no disk cache to clear', async () => {
    const before = (await app.root.call<{ stats_since: number }>('GET', '/api/performance/stats')).body.data!;
    await new Promise((r) => setTimeout(r, 1100));
    const reset = await app.root.call('POST', '/api/performance/reset_stats');
    expect(reset.body).toMatchObject({ success: true, message: 'statistics reset' });
    const after = (
      await app.root.call<{ stats_since: number; memory_stats: { num_gc: number } }>('GET', '/api/performance/stats')
    ).body.data!;
    expect(after.stats_since).toBeGreaterThan(before.stats_since);

    const gc = await app.root.call<Record<string, number>>('POST', '/api/performance/gc');
    expect(gc.body).toMatchObject({ success: true, message: 'GC executed' });
    expect(gc.body.data!.heap_used_after_mb).toBeGreaterThan(0);
    // V8 reports collections to observers a few milliseconds later.
    let counted = after.memory_stats.num_gc;
    for (let i = 0; i < 40 && counted <= after.memory_stats.num_gc; i++) {
      await new Promise((r) => setTimeout(r, 25));
      counted = (await app.root.call<{ memory_stats: { num_gc: number } }>('GET', '/api/performance/stats')).body.data!
        .memory_stats.num_gc;
    }
    expect(counted, 'the collection was counted').toBeGreaterThan(after.memory_stats.num_gc);
    expect('gc' in globalThis, 'gc is not exposed to the process').toBe(false);

    const disk = await app.root.call('DELETE', '/api/performance/disk_cache');
    expect(disk.body).toMatchObject({ success: true, message: expect.stringContaining('no disk cache') });
  });

  it("lists this server's log files in LOG_DIR only: no other names, links or folders", async () => {
    file(logDir, 'tollway-20240101000000.log', 100, 40);
    file(logDir, 'tollway-20240201000000.log', 200, 10);
    file(logDir, 'tollway-20250101000000.log', 300, 0);
    file(logDir, 'other.log', 50, 90);
    fs.mkdirSync(path.join(logDir, 'tollway-20230101000000.log'));
    const target = file(outside, 'tollway-20220101000000.log', 70, 90);
    fs.symlinkSync(target, path.join(logDir, 'tollway-20220101000000.log'));

    const body = await list();
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({ log_dir: logDir, enabled: true, file_count: 3, total_size: 600 });
    expect(body.data!.files.map((f) => [f.name, f.size])).toEqual([
      ['tollway-20250101000000.log', 300],
      ['tollway-20240201000000.log', 200],
      ['tollway-20240101000000.log', 100],
    ]);
    expect(Date.parse(body.data!.oldest_time!)).toBeLessThan(Date.now() - 39 * DAY_MS);
  });

  it('refuses bad clean-up parameters, and a path given anywhere reaches nothing outside LOG_DIR', async () => {
    for (const q of [
      'mode=../../outside&value=1',
      'mode=by_count&value=0',
      'mode=by_count&value=abc',
      'mode=by_days&value=99999999',
      'value=1',
    ])
      expectRefused(await app.root.call('DELETE', `/api/performance/logs?${q}`), q);
    const res = await app.root.call(
      'DELETE',
      `/api/performance/logs?mode=by_count&value=1&name=../outside/tollway-20220101000000.log&file=${encodeURIComponent(path.join(outside, 'tollway-20220101000000.log'))}`,
    );
    expect(res.body.success).toBe(true);
    expect(fs.existsSync(path.join(outside, 'tollway-20220101000000.log')), 'the outside file').toBe(true);
    expect(fs.lstatSync(path.join(logDir, 'tollway-20220101000000.log')).isSymbolicLink(), 'the link').toBe(true);
    expect(await names()).toEqual(['tollway-20250101000000.log']);
    // Put the two older files back for the next case.
    file(logDir, 'tollway-20240101000000.log', 100, 40);
    file(logDir, 'tollway-20240201000000.log', 200, 10);
  });

  it('cleans up by age, then by count, deleting only matching files of LOG_DIR', async () => {
    const byDays = await app.root.call('DELETE', '/api/performance/logs?mode=by_days&value=30');
    expect(byDays.body).toEqual({
      success: true,
      message: '',
      data: { deleted_count: 1, freed_bytes: 100, failed_files: [] },
    });
    expect(await names()).toEqual(['tollway-20250101000000.log', 'tollway-20240201000000.log']);
    const byCount = await app.root.call('DELETE', '/api/performance/logs?mode=by_count&value=1');
    expect(byCount.body.data).toEqual({ deleted_count: 1, freed_bytes: 200, failed_files: [] });
    expect(await names()).toEqual(['tollway-20250101000000.log']);
    expect(fs.existsSync(path.join(logDir, 'other.log'))).toBe(true);
    expect(fs.statSync(path.join(logDir, 'tollway-20230101000000.log')).isDirectory()).toBe(true);
    expect(fs.readdirSync(outside)).toEqual(['tollway-20220101000000.log']);
  });

  it('refuses administrators, users and visitors', async () => {
    const routes = [
      ['GET', '/api/performance/stats'],
      ['POST', '/api/performance/reset_stats'],
      ['POST', '/api/performance/gc'],
      ['DELETE', '/api/performance/disk_cache'],
      ['GET', '/api/performance/logs'],
      ['DELETE', '/api/performance/logs?mode=by_count&value=1'],
    ] as const;
    for (const [who, c] of [
      ['admin', app.admins[0]!],
      ['user', app.users[0]!],
    ] as const) {
      for (const [method, url] of routes) {
        const res = await c.call(method, url);
        expect(res.status, `${who} ${method} ${url}`).toBe(403);
        expect(res.body.success).toBe(false);
        expect(res.body.data).toBeUndefined();
      }
    }
    for (const [method, url] of routes)
      expect((await app.t.app.inject({ method, url })).statusCode, `${method} ${url}`).toBe(401);
    expect(await names()).toEqual(['tollway-20250101000000.log']);
  });
});

describe('LOG_DIR in the server process', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-logdir-proc-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the log to a new file there as well as to stdout, up to the last line before the exit', async () => {
    const logDir = path.join(dir, 'logs');
    const p = runServer({
      SQLITE_PATH: path.join(dir, 'db', 'tollway.db'),
      PORT: String(await freePort()),
      WEB_DIST: '/nonexistent',
      LOG_DIR: logDir,
    });
    await waitForStart(p);
    const files = fs.readdirSync(logDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^tollway-\d{14}\.log$/);
    const file = path.join(logDir, files[0]!);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    const written = fs.readFileSync(file, 'utf8').trim().split('\n');
    const printed = p
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(written.length).toBeGreaterThan(1);
    expect(written).toEqual(printed);
    expect(written.some((l) => l.includes('tollway started'))).toBe(true);
  });

  it('stops with one line naming LOG_DIR when no file can be made there', async () => {
    const notADir = path.join(dir, 'a-file');
    fs.writeFileSync(notADir, '');
    const p = runServer({ SQLITE_PATH: path.join(dir, 'db2', 'x.db'), LOG_DIR: path.join(notADir, 'logs') });
    expect(await p.exited).not.toBe(0);
    expect(p.output().trim().split('\n')).toEqual([
      expect.stringMatching(/^tollway: LOG_DIR: cannot write a log file/),
    ]);
  });
});
