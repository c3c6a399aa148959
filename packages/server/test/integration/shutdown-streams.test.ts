import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSqliteDriver } from '../../src/db/sqlite-driver.js';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cutAfterMs } from '../../src/http/shutdown.js';
import { createTestDatabase } from '../support/databases.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { freePort } from '../support/process.js';
import { startFreezableProxy } from '../support/shutdown-proxy.js';
import {
  prepareRelay,
  refusesConnections,
  spawnTollway,
  waitForOutput,
  type Spawned,
} from '../support/shutdown-server.js';

// better-sqlite3 of the line that runs on this Node.js.
const Database = await loadSqliteDriver();

/** The grace period these servers get (SHUTDOWN_TIMEOUT, seconds). */
const GRACE_S = 5;
const GRACE_MS = GRACE_S * 1000;
/** How late after the deadline a forced exit may come (the exit itself, a last log line). */
const FORCED_EXIT_SLACK_MS = 1_500;
const SESSION_SECRET = 'shutdown-streams-secret-0123456789abcdef';
const START_BALANCE = 100_000_000;
/** When, after SIGTERM, a new connection is tried (and refused). */
const REFUSE_CHECK_MS = 300;
/** A stream that outlasts any grace period here: 400 pieces, 50 ms apart (20 s). */
const ENDLESS = { pieces: Array.from({ length: 400 }, (_, i) => ` w${i}`), chunkDelayMs: 50 };
/** A stream that ends well within the grace period: 10 pieces, 100 ms apart. */
const SHORT = { pieces: Array.from({ length: 10 }, (_, i) => ` s${i}`), chunkDelayMs: 100 };

interface StreamRead {
  /** Content pieces received. */
  pieces: string[];
  /** The stream ended with [DONE]. */
  done: boolean;
}

/** Opens a streamed chat call and reads it; `at.run(n)` runs once n ≥ `at.pieces` pieces have arrived. */
async function streamCall(
  base: string,
  key: string,
  at: { pieces: number; run: (received: number) => void },
): Promise<StreamRead> {
  const r = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
  expect(r.status).toBe(200);
  const read: StreamRead = { pieces: [], done: false };
  const decoder = new TextDecoder();
  let text = '';
  let ran = false;
  try {
    for await (const chunk of r.body!) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      let end;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const event = text.slice(0, end).replace(/^data: /, '');
        text = text.slice(end + 2);
        if (event === '[DONE]') read.done = true;
        else if (event.startsWith('{')) {
          const piece = (JSON.parse(event) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta
            ?.content;
          if (piece) read.pieces.push(piece);
        }
      }
      if (!ran && read.pieces.length >= at.pieces) {
        ran = true;
        at.run(read.pieces.length);
      }
    }
  } catch {
    // The server cut the connection.
  }
  return read;
}

interface ConsumeRow {
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/** SIGTERM with relay streams open: each finishes or is cut and billed for what it delivered, within the grace period. */
describe('shutdown with relay streams in flight', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-shutdown-streams-'));
  let mock: MockUpstream;
  const running: Spawned[] = [];
  beforeAll(async () => {
    mock = await startMockUpstream({ record: false });
    mock.behaviors.set('endless', ENDLESS);
    mock.behaviors.set('short', SHORT);
  });
  afterEach(() => {
    for (const p of running.splice(0))
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  });
  afterAll(async () => {
    await mock.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>) => {
    const port = await freePort();
    const p = spawnTollway({ SESSION_SECRET, SHUTDOWN_TIMEOUT: String(GRACE_S), PORT: String(port), ...env });
    running.push(p);
    await waitForOutput(p, 'tollway started');
    return { p, base: `http://127.0.0.1:${port}` };
  };
  /** A data folder of the test's own (the SQLite file and the writer's journal). */
  const dataDir = (name: string) => {
    const folder = path.join(dir, name);
    fs.mkdirSync(folder, { recursive: true });
    return folder;
  };
  /** Starts the server again on the same data, reads the consume logs and the user's balance, stops it. */
  const afterRestart = async (dbPath: string) => {
    const { p } = await start({ SQLITE_PATH: dbPath });
    const db = new Database(dbPath, { readonly: true });
    const rows = db
      .prepare('SELECT quota, prompt_tokens, completion_tokens FROM logs WHERE type = 2')
      .all() as ConsumeRow[];
    const user = db.prepare('SELECT quota, used_quota FROM users WHERE id = 1').get() as {
      quota: number;
      used_quota: number;
    };
    db.close();
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    return { rows, user };
  };

  it('cuts a stream still open shortly before the deadline, bills what it delivered and exits 0 in time', async () => {
    const dbPath = path.join(dataDir('cut'), 'tollway.db');
    const { p, base } = await start({ SQLITE_PATH: dbPath });
    const { key } = await prepareRelay(base, mock.url, 'endless');
    let sent = 0;
    let piecesAtSignal = 0;
    const read = await streamCall(base, key, {
      pieces: 3,
      run: (received) => {
        sent = Date.now();
        piecesAtSignal = received;
        p.child.kill('SIGTERM');
      },
    });
    const exit = await p.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    // Cut near the deadline, not at once: the stream kept flowing meanwhile.
    expect(exit.at - sent).toBeGreaterThanOrEqual(cutAfterMs(GRACE_MS) - 100);
    expect(exit.at - sent).toBeLessThan(GRACE_MS);
    expect(read.done).toBe(false);
    expect(read.pieces.length).toBeGreaterThan(piecesAtSignal + 10);
    expect(read.pieces.length).toBeLessThan(ENDLESS.pieces.length);

    const { rows, user } = await afterRestart(dbPath);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.quota).toBeGreaterThan(0);
    // Billed for what it delivered: each piece the client got (` w12`) counts at least a token; the whole stream's
    // pieces count at most two each.
    expect(rows[0]!.completion_tokens).toBeGreaterThanOrEqual(read.pieces.length);
    expect(rows[0]!.completion_tokens).toBeLessThanOrEqual(ENDLESS.pieces.length * 2);
    expect(user).toEqual({ quota: START_BALANCE - rows[0]!.quota, used_quota: rows[0]!.quota });
  });

  it('stops accepting at once and lets a stream that ends in time finish in full, then exits 0', async () => {
    const dbPath = path.join(dataDir('finish'), 'tollway.db');
    const { p, base } = await start({ SQLITE_PATH: dbPath });
    const { key } = await prepareRelay(base, mock.url, 'short');
    let sent = 0;
    let refused: Promise<boolean> | undefined;
    const read = await streamCall(base, key, {
      pieces: 1,
      run: () => {
        sent = Date.now();
        p.child.kill('SIGTERM');
        refused = new Promise((r) => setTimeout(r, REFUSE_CHECK_MS)).then(() => {
          // A second stop signal while stopping changes nothing.
          p.child.kill('SIGINT');
          return refusesConnections(base);
        });
      },
    });
    expect(await refused).toBe(true);
    const exit = await p.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - sent).toBeLessThan(cutAfterMs(GRACE_MS));
    expect(read).toEqual({ pieces: SHORT.pieces, done: true });
    await p.closed;
    expect(p.output().match(/"msg":"shutting down: /g)).toHaveLength(1);
    expect(p.output()).toContain('"signal":"SIGINT","msg":"already shutting down"');
    expect(p.output().match(/"msg":"shutdown complete"/g)).toHaveLength(1);

    const { rows, user } = await afterRestart(dbPath);
    // The mock's usage chunk: 12 prompt and 5 completion tokens.
    expect(rows).toMatchObject([{ prompt_tokens: 12, completion_tokens: 5 }]);
    expect(rows[0]!.quota).toBeGreaterThan(0);
    expect(user).toEqual({ quota: START_BALANCE - rows[0]!.quota, used_quota: rows[0]!.quota });
  });

  it('exits 1 at the deadline when closing hangs (the database stops answering mid-shutdown)', async () => {
    const database = await createTestDatabase('postgres');
    const proxy = await startFreezableProxy({ host: '127.0.0.1', port: Number(new URL(database.dsn).port) });
    try {
      const dsn = new URL(database.dsn);
      dsn.port = String(proxy.port);
      const { p, base } = await start({ SQL_DSN: dsn.toString(), DATA_DIR: dataDir('frozen') });
      const { key } = await prepareRelay(base, mock.url, 'short');
      const read = await streamCall(base, key, { pieces: 1, run: () => undefined });
      expect(read.done).toBe(true);
      proxy.freeze();
      const sent = Date.now();
      p.child.kill('SIGTERM');
      const exit = await p.exited;
      expect(exit).toMatchObject({ code: 1, signal: null });
      expect(exit.at - sent).toBeGreaterThanOrEqual(GRACE_MS - 100);
      expect(exit.at - sent).toBeLessThan(GRACE_MS + FORCED_EXIT_SLACK_MS);
      await p.closed;
      expect(p.output()).toContain('shutdown took too long; exiting');

      // What the hung shutdown could not write is in the journal: the next start (database reachable) applies it.
      const again = await start({ SQL_DSN: database.dsn, DATA_DIR: dataDir('frozen') });
      const rows = await database.db.kysely
        .selectFrom('logs')
        .select(['prompt_tokens', 'completion_tokens'])
        .where('type', '=', 2)
        .execute();
      expect(rows).toEqual([{ prompt_tokens: 12, completion_tokens: 5 }]);
      again.p.child.kill('SIGTERM');
      expect((await again.p.exited).code).toBe(0);
    } finally {
      await proxy.close();
      // The frozen connections' server processes outlive the proxy for a moment; they would block the drop.
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`.execute(
        database.db.kysely,
      );
      await database.drop();
    }
  });
});
