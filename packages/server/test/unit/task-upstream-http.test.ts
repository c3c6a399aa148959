import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TASK_ANSWER_MAX_BYTES,
  TaskAnswerTooLarge,
  taskRequest,
  taskStream,
} from '../../src/relay/tasks/upstream-http.js';

const TASKS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/relay/tasks');
/** A call of the global fetch (or its Request/Response objects), not a method or a name containing "fetch". */
const GLOBAL_FETCH = /(?<![\w.$])(?:globalThis\.)?fetch\s*\(|new\s+(?:Request|Response)\s*\(/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('task upstream HTTP', () => {
  it('no file under relay/tasks calls the global fetch: every upstream call goes through upstream-http.ts', () => {
    const files = sources(TASKS_DIR);
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${path.relative(TASKS_DIR, f)}:${i + 1}` }))
        .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line) && GLOBAL_FETCH.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
    // The check itself finds what it forbids.
    expect(GLOBAL_FETCH.test('const r = await fetch(url);')).toBe(true);
    expect(GLOBAL_FETCH.test('await platform.fetchTasks(up, ids); sunoFetchUrl(base);')).toBe(false);
  });

  let server: http.Server;
  let base = '';
  const seen: { method?: string; type?: string; body: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, type: req.headers['content-type'], body });
        if (req.url === '/json')
          return res
            .writeHead(201, { 'content-type': 'application/json' })
            .end(JSON.stringify({ echo: body ? JSON.parse(body) : null }));
        if (req.url === '/text') return res.writeHead(502).end('bad gateway');
        if (req.url === '/huge') {
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(1024 * 1024, 'a');
          for (let i = 0; i <= TASK_ANSWER_MAX_BYTES / chunk.length; i++) res.write(chunk);
          return res.end();
        }
        if (req.url === '/bytes')
          return res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 5 }).end('abcde');
        if (req.url === '/slow') return setTimeout(() => res.writeHead(200).end('{}'), 2000);
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('sends JSON (POST with content-type) and reads JSON and text answers with their status', async () => {
    expect(await taskRequest(`${base}/json`, { json: { a: 1 } })).toEqual({
      status: 201,
      text: '{"echo":{"a":1}}',
      json: { echo: { a: 1 } },
    });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', type: 'application/json' });
    expect(await taskRequest(`${base}/json`)).toMatchObject({ status: 201, json: { echo: null } });
    expect(seen.at(-1)).toMatchObject({ method: 'GET' });
    expect(await taskRequest(`${base}/text`)).toEqual({ status: 502, text: 'bad gateway', json: undefined });
  });

  it('refuses an answer over the cap, times out, and streams bytes through', async () => {
    await expect(taskRequest(`${base}/huge`)).rejects.toBeInstanceOf(TaskAnswerTooLarge);
    await expect(taskRequest(`${base}/slow`, { timeoutMs: 100 })).rejects.toThrow();
    const s = await taskStream(`${base}/bytes`, {});
    expect(s).toMatchObject({ status: 200, contentType: 'video/mp4', contentLength: '5' });
    const chunks: Buffer[] = [];
    for await (const c of s.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('abcde');
  });
});
