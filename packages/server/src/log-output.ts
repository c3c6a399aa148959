import fs from 'node:fs';
import { chooseLogFormat, formatLogLine, type PrettyOptions } from './log-format.js';

/** Characters kept while the output cannot take them (a full pipe); beyond this, new lines are dropped. */
const MAX_PENDING_CHARS = 4 * 1024 * 1024;
/** Wait before retrying a write the output refused for now (EAGAIN, EBUSY). */
const RETRY_MS = 50;
/** Write errors that mean "not now" rather than "never". */
const TRANSIENT_CODES = new Set(['EAGAIN', 'EBUSY', 'EINTR']);

/**
 * A log destination on a file descriptor that can never block the event loop or throw: lines are written
 * asynchronously (off the main thread) one batch at a time; a full output keeps a bounded backlog and retries;
 * any other error (EPIPE: the reader is gone, EBADF, …) drops this and every later line. Nothing is written
 * synchronously, not even at exit, so a stuck or broken stdout cannot hold the process.
 */
export class FdOutput {
  private pending: string[] = [];
  private pendingChars = 0;
  private writing = false;
  private broken = false;
  private dropped = 0;
  private waiters: (() => void)[] = [];

  constructor(private readonly fd: number) {}

  /** True once a write failed for good; nothing more is written. */
  get closed(): boolean {
    return this.broken;
  }

  write(line: string): boolean {
    if (this.broken) return true;
    if (this.pendingChars + line.length > MAX_PENDING_CHARS) {
      this.dropped++;
      return true;
    }
    this.pending.push(line);
    this.pendingChars += line.length;
    if (!this.writing) this.writeNext();
    return true;
  }

  /** Calls back once every line so far is written (or dropped); pino's logger.flush(cb) lands here. */
  flush(cb?: (err?: Error) => void): void {
    if (!cb) return;
    if (!this.writing || this.broken) cb();
    else this.waiters.push(() => cb());
  }

  /** Resolves when written out, or after `timeoutMs` whatever the output does. */
  drained(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.flush(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private writeNext(): void {
    if (this.pending.length === 0 || this.broken) {
      this.writing = false;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
      return;
    }
    this.writing = true;
    if (this.dropped > 0) {
      const note = JSON.stringify({
        level: 40,
        time: Date.now(),
        msg: `log output was full: ${this.dropped} lines dropped`,
      });
      this.pending.unshift(`${note}\n`);
      this.dropped = 0;
    }
    const buf = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingChars = 0;
    this.writeOut(buf);
  }

  private writeOut(buf: Buffer): void {
    fs.write(this.fd, buf, 0, buf.length, null, (err, n) => {
      if (err) {
        if (TRANSIENT_CODES.has(err.code ?? '')) {
          setTimeout(() => this.writeOut(buf), RETRY_MS).unref();
          return;
        }
        this.broken = true;
        this.pending = [];
        this.pendingChars = 0;
        this.writeNext();
        return;
      }
      if (n < buf.length) this.writeOut(buf.subarray(n));
      else this.writeNext();
    });
  }
}

let stdoutOutput: FdOutput | undefined;
let stderrOutput: FdOutput | undefined;

/** The process's standard output as a never-blocking log destination (one per process). */
export function stdoutLog(): FdOutput {
  return (stdoutOutput ??= new FdOutput(1));
}

/** A log destination that writes each pino JSON line readably (log-format.ts) to a never-blocking output. */
export class PrettyOutput {
  constructor(
    private readonly out: FdOutput,
    private readonly opts: PrettyOptions,
  ) {}

  write(line: string): boolean {
    return this.out.write(formatLogLine(line, this.opts));
  }

  flush(cb?: (err?: Error) => void): void {
    this.out.flush(cb);
  }
}

let stdoutDest: FdOutput | PrettyOutput | undefined;

/**
 * Where the log goes on standard output: readable lines when it is a terminal (coloured where the terminal has
 * colours and NO_COLOR is not set), JSON lines otherwise. Either way through the one never-blocking stdoutLog().
 */
export function stdoutDestination(): FdOutput | PrettyOutput {
  if (stdoutDest) return stdoutDest;
  const out = process.stdout;
  stdoutDest =
    chooseLogFormat(out.isTTY) === 'pretty'
      ? new PrettyOutput(stdoutLog(), { colour: out.hasColors?.() ?? false })
      : stdoutLog();
  return stdoutDest;
}

/** Standard error, for the few messages written before a logger exists. */
export function stderrLog(): FdOutput {
  return (stderrOutput ??= new FdOutput(2));
}

/**
 * A broken stdout or stderr (EPIPE once the reader is gone) emits 'error' on process.stdout/stderr when
 * anything writes there (console, warnings, a dependency); unhandled, that would crash the process mid-shutdown.
 */
export function ignoreStdioErrors(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}
