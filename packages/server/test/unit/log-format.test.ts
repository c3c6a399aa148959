import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseLogFormat, formatLogLine } from '../../src/log-format.js';
import { FdOutput, PrettyOutput } from '../../src/log-output.js';
import { startUrl } from '../../src/start-url.js';

/** A pino line as the server writes it (12:04:05 local time). */
function jsonLine(fields: Record<string, unknown>): string {
  const time = new Date(2026, 11, 4, 12, 4, 5).getTime();
  return `${JSON.stringify({ level: 30, time, pid: 4242, hostname: 'box', ...fields })}\n`;
}

describe('the log format on standard output', () => {
  it('is readable lines at a terminal and JSON lines anywhere else', () => {
    expect(chooseLogFormat(true)).toBe('pretty');
    expect(chooseLogFormat(false)).toBe('json');
    expect(chooseLogFormat(undefined)).toBe('json');
  });
});

describe('readable log lines', () => {
  const plain = { colour: false };

  it('show the time, the level and the message, then the fields as key=value, without pid or hostname', () => {
    const out = formatLogLine(
      jsonLine({ msg: 'migrations applied', dialect: 'sqlite', applied: ['0001_a', '0002_b'] }),
      plain,
    );
    expect(out).toBe('12:04:05 INFO  migrations applied  dialect=sqlite applied=0001_a,0002_b\n');
  });

  it('put the page to open right after the start message', () => {
    const line = jsonLine({
      msg: 'tollway started',
      open: 'http://localhost:3000/setup',
      port: 3000,
      database: 'sqlite',
    });
    expect(formatLogLine(line, plain)).toBe(
      '12:04:05 INFO  tollway started — open http://localhost:3000/setup  port=3000 database=sqlite\n',
    );
  });

  it('quote a value with spaces, spread a nested object as key.sub, and indent an error stack below', () => {
    const line = jsonLine({
      level: 50,
      msg: 'request failed',
      reason: 'upstream timed out',
      req: { method: 'POST', url: '/v1/chat/completions' },
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at relay (relay.ts:1:1)' },
    });
    expect(formatLogLine(line, plain)).toBe(
      '12:04:05 ERROR request failed  reason="upstream timed out" req.method=POST req.url=/v1/chat/completions\n' +
        '    Error: boom\n        at relay (relay.ts:1:1)\n',
    );
  });

  it('colour the level label only when asked, and pass a line that is not JSON through unchanged', () => {
    const warn = formatLogLine(jsonLine({ level: 40, msg: 'careful' }), { colour: true });
    expect(warn).toBe('12:04:05 \x1b[33mWARN \x1b[0m careful\n');
    expect(formatLogLine('not json at all', plain)).toBe('not json at all\n');
  });
});

describe('the pretty destination', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-pretty-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("turns the logger's JSON into readable lines, redaction included, on a never-blocking output", async () => {
    const file = path.join(dir, 'out.log');
    const fd = fs.openSync(file, 'w');
    const out = new FdOutput(fd);
    const log = pino(
      { redact: { paths: ['password'], censor: '[redacted]' } },
      new PrettyOutput(out, { colour: false }),
    );
    log.info({ user: 'root', password: 'hunter22' }, 'signed in');
    await out.drained(2_000);
    fs.closeSync(fd);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(/^\d\d:\d\d:\d\d INFO {2}signed in {2}user=root password=\[redacted\]\n$/);
  });
});

describe('the page the start-up line names', () => {
  it('is the setup page on localhost until the administrator is set up, then the console', () => {
    expect(startUrl({ port: 3000, setUp: false })).toBe('http://localhost:3000/setup');
    expect(startUrl({ port: 8080, host: '0.0.0.0', setUp: true })).toBe('http://localhost:8080/');
    expect(startUrl({ port: 3000, host: '::', setUp: true })).toBe('http://localhost:3000/');
  });

  it('names the address the server listens on when HOST is one interface', () => {
    expect(startUrl({ port: 3000, host: '192.0.2.7', setUp: true })).toBe('http://192.0.2.7:3000/');
    expect(startUrl({ port: 3000, host: 'fd00::7', setUp: false })).toBe('http://[fd00::7]:3000/setup');
  });
});
