import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { spoolBudgetOf } from '../../src/relay/surfaces/spool-budget.js';
import { createUserClient } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, setQuota } from '../support/gateway.js';
import { parseSamples, sampleValue } from '../support/prometheus-text.js';

// The spools of this file's app go to a folder of its own (os.tmpdir() reads TMPDIR on every call), so what is on
// disk can be measured without other files' uploads. TMPDIR is put back when the file ends: the next file in the
// same worker must not get a removed folder as its temporary one.
const SPOOL_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-spool-limits-'));
const PREVIOUS_TMPDIR = process.env.TMPDIR;
process.env.TMPDIR = SPOOL_DIR;

const MB = 1024 * 1024;
const CALLER_CAP_MB = 64;
const TOTAL_CAP_MB = 100;
const UPLOAD = 30 * MB;
const MODEL = 'dall-e-2';
const SURFACE = '/v1/images/edits';
const METRICS_TOKEN = 'upload-limits-metrics-token';
const BOUNDARY = 'tollway-upload-limits';

/** Bytes of spooled uploads on disk now. */
function spooledBytes(): number {
  let total = 0;
  for (const name of fs.readdirSync(SPOOL_DIR)) {
    if (!name.startsWith('tollway-upload-')) continue;
    try {
      total += fs.statSync(path.join(SPOOL_DIR, name)).size;
    } catch {
      // Removed between the listing and the stat.
    }
  }
  return total;
}

/** The largest spooled total seen while it runs (sampled every 10 ms). */
function watchSpool(): { max(): number; stop(): void } {
  let max = spooledBytes();
  const timer = setInterval(() => (max = Math.max(max, spooledBytes())), 10);
  return { max: () => Math.max(max, spooledBytes()), stop: () => clearInterval(timer) };
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The multipart form of an images edit whose body is exactly `total` bytes (the image fills what is left). */
function editForm(total: number): { head: Buffer; fileBytes: number; tail: Buffer } {
  const head = Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="model"\r\n\r\n${MODEL}\r\n` +
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="prompt"\r\n\r\nadd a hat\r\n` +
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="image"; filename="a.png"\r\ncontent-type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return { head, fileBytes: total - head.length - tail.length, tail };
}

const FILLER = Buffer.alloc(MB, 'a');

/**
 * An images edit sent by hand on a raw socket, so a test decides how much of the body goes out and when: with a
 * content-length, or chunked (`total` undefined in the head).
 */
class RawUpload {
  readonly socket: net.Socket;
  private text = '';
  private sentFile = 0;
  private readonly form: ReturnType<typeof editForm>;
  closed = false;

  constructor(
    port: number,
    key: string,
    total: number,
    private readonly chunked = false,
  ) {
    this.form = editForm(total);
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (c) => (this.text += c.toString('latin1')));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => (this.closed = true));
    const length = chunked ? 'transfer-encoding: chunked' : `content-length: ${total}`;
    this.write(
      Buffer.from(
        `POST ${SURFACE} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: multipart/form-data; boundary=${BOUNDARY}\r\n${length}\r\n\r\n`,
      ),
      true,
    );
    this.write(this.form.head);
  }

  private write(bytes: Buffer, raw = false): Promise<void> {
    if (this.closed || this.socket.destroyed) return Promise.resolve();
    const data =
      this.chunked && !raw
        ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')])
        : bytes;
    return new Promise((resolve) =>
      this.socket.write(data) ? resolve() : this.socket.once('drain', resolve).once('close', resolve),
    );
  }

  /** Sends file bytes until `upTo` of the file went out (stops early when the server answered or closed). */
  async sendFile(upTo: number): Promise<void> {
    while (this.sentFile < upTo && !this.closed && !this.answered) {
      const n = Math.min(FILLER.length, upTo - this.sentFile);
      await this.write(FILLER.subarray(0, n));
      this.sentFile += n;
    }
  }

  /** Sends the rest of the body. */
  async finish(): Promise<void> {
    await this.sendFile(this.form.fileBytes);
    await this.write(this.form.tail);
    if (this.chunked) await this.write(Buffer.from('0\r\n\r\n'), true);
  }

  get answered(): boolean {
    return /\r\n\r\n/.test(this.text);
  }

  /** The answer: status and JSON body (waits for it). */
  async answer(): Promise<{ status: number; body: any }> {
    await until('an answer', () => this.complete() || this.closed);
    const status = Number(/^HTTP\/1\.1 (\d+)/.exec(this.text)?.[1] ?? 0);
    const at = this.text.indexOf('\r\n\r\n');
    let body = this.text.slice(at + 4);
    // A chunked answer: its chunks joined.
    if (/\r\ntransfer-encoding: chunked/i.test(this.text.slice(0, at)))
      body = body.replace(/(?:^|\r\n)[0-9a-f]+\r\n/gi, '');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = body;
    }
    return { status, body: json };
  }

  private complete(): boolean {
    const at = this.text.indexOf('\r\n\r\n');
    if (at < 0) return false;
    const head = this.text.slice(0, at);
    if (/\r\ntransfer-encoding: chunked/i.test(head)) return this.text.endsWith('\r\n0\r\n\r\n');
    const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
    return length !== undefined && this.text.length - at - 4 >= Number(length);
  }

  /** Resets the connection (an RST, as a client that crashed or was killed). */
  reset(): void {
    this.socket.resetAndDestroy();
  }

  end(): void {
    this.socket.destroy();
  }
}

describe('upload spools: per-caller and global caps, released on every exit', { timeout: 180_000 }, () => {
  const env = {
    UPLOAD_SPOOL_CALLER_MB: String(CALLER_CAP_MB),
    UPLOAD_SPOOL_TOTAL_MB: String(TOTAL_CAP_MB),
    METRICS_TOKEN,
  };
  let port = 0;
  let otherKey = '';
  // Registered before the gateway, so it runs after the gateway's close (after-hooks run in reverse): the app's data
  // folder lives in SPOOL_DIR, and its writer rotates the journal as it stops.
  afterAll(() => {
    if (PREVIOUS_TMPDIR === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = PREVIOUS_TMPDIR;
    fs.rmSync(SPOOL_DIR, { recursive: true, force: true });
  });
  const gw = useGateway('sqlite', { env, user: 'uploader', quota: 100_000_000 }, async (g) => {
    port = Number(new URL(g.base).port);
    await addChannel(g.root, { name: 'edits', key: 'edits-key', baseUrl: g.mock.url, models: MODEL });
    await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.02 }) });
    const other = await createUserClient(g.t.app, g.root, 'other-uploader');
    await setQuota(g.root, other.userId!, 100_000_000);
    otherKey = (await addToken(g.t, other.userId!)).key;
  });

  /**
   * No spool file left and none of their bytes held against a cap. A spool's file goes before its lease (the budget
   * never counts less than the disk holds), so an empty folder alone can be seen a turn before the lease is given
   * back: an upload started then was refused for a cap the last test's spools still held.
   */
  const spoolsGone = () =>
    fs.readdirSync(SPOOL_DIR).every((n) => !n.startsWith('tollway-upload-')) &&
    spoolBudgetOf(gw.t.runtime.ctx.config).spooled() === 0;

  const open: RawUpload[] = [];
  const upload = (key: string, total = UPLOAD, chunked = false) => {
    const u = new RawUpload(port, key, total, chunked);
    open.push(u);
    return u;
  };
  afterAll(() => open.forEach((u) => u.end()));

  it('one caller’s twelve parallel 30 MB uploads: two spooled, ten refused at once (429); another caller gets through up to the global cap', async () => {
    const watch = watchSpool();
    try {
      const mine = Array.from({ length: 12 }, () => upload(gw.key));
      // Every upload sends its first megabyte; the ones over the caller's cap are answered before writing anything.
      await Promise.all(mine.map((u) => u.sendFile(MB)));
      await until('ten refusals', () => mine.filter((u) => u.answered).length >= 10);
      const refused = mine.filter((u) => u.answered);
      const held = mine.filter((u) => !u.answered);
      expect(refused).toHaveLength(10);
      for (const u of refused) {
        const a = await u.answer();
        expect(a.status).toBe(429);
        expect(a.body.error).toMatchObject({ type: 'rate_limit_error', code: 'upload_limit_exceeded' });
      }
      // The two held uploads send all but their last megabyte: on disk, never more than the caller's cap.
      await Promise.all(held.map((u) => u.sendFile(UPLOAD - 2 * MB)));
      await until('two spools filled', () => spooledBytes() >= 2 * (UPLOAD - 3 * MB));
      expect(watch.max()).toBeLessThanOrEqual(CALLER_CAP_MB * MB);

      // Another caller: its first upload fits under the global cap beside the 60 MB held, its second does not.
      const theirs = upload(otherKey);
      await theirs.sendFile(2 * MB);
      await until('the other caller’s spool', () => spooledBytes() >= 2 * (UPLOAD - 3 * MB) + MB);
      expect(theirs.answered).toBe(false);
      const over = upload(otherKey);
      await over.sendFile(MB);
      const overAnswer = await over.answer();
      expect(overAnswer.status).toBe(429);
      expect(overAnswer.body.error.code).toBe('upload_limit_exceeded');

      await Promise.all([...held, theirs].map((u) => u.finish()));
      const answers = await Promise.all([...held, theirs].map((u) => u.answer()));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(watch.max()).toBeLessThanOrEqual(TOTAL_CAP_MB * MB);
      // Released when each answer is over: the folder is empty again.
      await until('no spool on disk or held', spoolsGone);
    } finally {
      watch.stop();
    }
  });

  it('a chunked upload (no length announced) is refused when it passes the caller’s cap, before more reaches the disk', async () => {
    const watch = watchSpool();
    try {
      // Two announced uploads hold 60 MB of the caller's 64: a chunked one is refused within its first 4 MB.
      const first = [upload(gw.key), upload(gw.key)];
      await Promise.all(first.map((u) => u.sendFile(UPLOAD - 2 * MB)));
      await until('the first spools', () => spooledBytes() >= 2 * (UPLOAD - 3 * MB));
      const chunked = upload(gw.key, UPLOAD, true);
      await chunked.sendFile(UPLOAD - 2 * MB);
      const a = await chunked.answer();
      expect(a.status).toBe(429);
      expect(a.body.error.code).toBe('upload_limit_exceeded');
      expect(watch.max()).toBeLessThanOrEqual(CALLER_CAP_MB * MB);
      await Promise.all(first.map((u) => u.finish()));
      expect((await Promise.all(first.map((u) => u.answer()))).map((r) => r.status)).toEqual([200, 200]);
      await until('no spool on disk or held', spoolsGone);
    } finally {
      watch.stop();
    }
  });

  it('aborted uploads leave no spool behind and give their bytes back to the caller’s cap', async () => {
    const cut = [upload(gw.key), upload(gw.key)];
    await Promise.all(cut.map((u) => u.sendFile(10 * MB)));
    await until('both spools', () => spooledBytes() >= 2 * 9 * MB);
    cut.forEach((u) => u.reset());
    await until('no spool on disk or held', spoolsGone);
    // The caller's whole cap is free again: two full uploads are served.
    const again = [upload(gw.key), upload(gw.key)];
    await Promise.all(again.map((u) => u.finish()));
    expect((await Promise.all(again.map((u) => u.answer()))).map((a) => a.status)).toEqual([200, 200]);
  });

  it('an upload the client resets halfway is the client’s 499: no 5xx counted, nothing logged at error level', async () => {
    const scrape = async () =>
      parseSamples(
        (
          await gw.t.app.inject({
            method: 'GET',
            url: '/metrics',
            headers: { authorization: `Bearer ${METRICS_TOKEN}` },
          })
        ).body,
      );
    const count = (samples: ReturnType<typeof parseSamples>, cls: string) =>
      sampleValue(samples, 'tollway_relay_requests_total', {
        surface: SURFACE,
        model: 'none',
        channel: 'none',
        status_class: cls,
      });
    const log = gw.t.runtime.ctx.log;
    const errors = vi.spyOn(log, 'error');
    const infos = vi.spyOn(log, 'info');
    try {
      const before = await scrape();
      const half = upload(gw.key, MB);
      await half.sendFile(MB / 2);
      await until('the spool', () => spooledBytes() > 0);
      half.reset();
      await until('the call counted', async () => {
        const now = await scrape();
        return count(now, '4xx') + count(now, '5xx') > count(before, '4xx') + count(before, '5xx');
      });
      const after = await scrape();
      expect({
        '4xx': count(after, '4xx') - count(before, '4xx'),
        '5xx': count(after, '5xx') - count(before, '5xx'),
      }).toEqual({ '4xx': 1, '5xx': 0 });
      expect(errors.mock.calls.map((c) => c.at(-1))).toEqual([]);
      expect(infos.mock.calls.map((c) => c.at(-1))).toContain('relay: the client closed the request');
      await until('no spool on disk or held', spoolsGone);
    } finally {
      errors.mockRestore();
      infos.mockRestore();
    }
  });
});
