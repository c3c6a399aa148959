import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../lib/private-files.js';
import type { WriteRecord } from './writer-apply.js';

/** When the journal's lines reach the disk itself (fsync), beyond the operating system (write). */
export type JournalFsync = 'always' | 'interval' | 'off';

/**
 * One line of a journal segment:
 * - `h` the segment's header: its batch id (and whether the batch feeds the hourly aggregates);
 * - `s` the segment sealed as a batch: whether it feeds the hourly aggregates, decided when the batch formed;
 * - `o` a call opened: the record billed at its reservation if the call never settles;
 * - `w` a record to apply (a settled call, `i` naming the call it closes, or a log-only record); `o`, when present,
 *   is its log's `other` as JSON (the text is JSON.stringify of it), not escaped into a string a second time;
 * - `x` a call closed with nothing to apply (refunded).
 */
export type JournalLine =
  | { k: 'h'; id: string; hourly?: true }
  | { k: 's'; hourly: boolean }
  | { k: 'o'; i: string; r: WriteRecord }
  | { k: 'w'; r: WriteRecord; i?: string; o?: unknown }
  | { k: 'x'; i: string };

export const SEGMENT_SUFFIX = '.jsonl';
/** Segment files are named by a zero-padded sequence, so a name sort is their order. */
const SEGMENT_NAME_DIGITS = 12;
/** The longest a line that is not urgent (a settlement) waits for a write of its own. */
export const LAZY_WRITE_MS = 2;

/**
 * The `w` line of a record. With `otherIsJson` (the caller made the log's `other` with JSON.stringify) that text goes
 * into the line as it is, under `o`, instead of being escaped again as a string.
 */
export function recordLine(record: WriteRecord, callId: string | undefined, otherIsJson: boolean): string {
  const line: JournalLine = callId ? { k: 'w', r: record, i: callId } : { k: 'w', r: record };
  const log = record.log as { other?: string } | undefined;
  const other = log?.other;
  if (!otherIsJson || !log || !other) return JSON.stringify(line);
  // Left out of the record's text for the moment (an undefined property is not written), then put back.
  log.other = undefined;
  try {
    return `{"o":${other},${JSON.stringify(line).slice(1)}`;
  } finally {
    log.other = other;
  }
}

export const segmentName = (seq: number): string =>
  `${String(seq).padStart(SEGMENT_NAME_DIGITS, '0')}${SEGMENT_SUFFIX}`;

/** A journal file: its header, the records it carries and the calls opened in it that are still open. */
export class Segment {
  readonly records: WriteRecord[] = [];
  /** Calls whose `o` line is in this segment and that have not closed yet. */
  readonly open = new Set<string>();
  applied = false;
  fd: number | undefined;
  /** fsyncs in flight on `fd`: a closed segment's descriptor is released only after the last one. */
  syncs = 0;
  /** The descriptor to close once `syncs` is back to zero. */
  closingFd: number | undefined;
  readonly createdAt = Date.now();

  constructor(
    readonly seq: number,
    readonly file: string,
    readonly id: string,
    public hourly: boolean,
  ) {}
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The write-ahead journal: segment files appended with group commit. Lines queued in one turn of the event loop
 * are written with one write(2) at the next (setImmediate); a caller that must not go on before its line is safe
 * awaits `durable()`. A written line survives the process dying at any point; with `fsync: 'always'` the awaited
 * line is also on the disk (machine crash), with 'interval' the disk catches up every `fsyncIntervalMs`.
 */
export class Journal {
  private buffer: string[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;
  private dirty = false;
  private syncing = false;
  private syncTimer: NodeJS.Timeout | undefined;
  private lazyTimer: NodeJS.Timeout | undefined;
  active: Segment | undefined;

  constructor(
    readonly dir: string,
    private readonly fsync: JournalFsync,
    fsyncIntervalMs: number,
    private nextSeq: number,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // It holds usage records of every caller: the owner's only, even if it was created otherwise.
    fs.chmodSync(dir, PRIVATE_DIR_MODE);
    if (fsync === 'interval') {
      this.syncTimer = setInterval(() => this.syncInBackground(), fsyncIntervalMs);
      this.syncTimer.unref();
    }
  }

  /**
   * Seals the active segment as a batch (`hourly` decided now), its lines written, and opens the next, whose
   * header is written at once.
   */
  rotate(hourly: boolean): Segment {
    if (this.active?.fd !== undefined) {
      this.active.hourly = hourly;
      this.append({ k: 's', hourly });
    }
    this.writeNow();
    // With 'always', callers waiting on lines of this segment are answered only once it is on the disk.
    this.closeActive(this.fsync === 'always');
    const seq = this.nextSeq++;
    const seg = new Segment(seq, path.join(this.dir, segmentName(seq)), crypto.randomUUID(), hourly);
    seg.fd = fs.openSync(seg.file, 'a', PRIVATE_FILE_MODE);
    fs.writeSync(
      seg.fd,
      `${JSON.stringify({ k: 'h', id: seg.id, ...(hourly ? { hourly: true } : {}) } satisfies JournalLine)}\n`,
    );
    this.active = seg;
    return seg;
  }

  /**
   * Queues a line for the active segment. A line that is not `urgent` (a settlement: the call's opening line already
   * stands for its bill) costs no write of its own: it goes out with the next urgent group or the next rotation.
   */
  append(line: JournalLine, urgent = true): void {
    this.appendText(JSON.stringify(line), urgent);
  }

  appendText(text: string, urgent = true): void {
    this.buffer.push(text);
    if (urgent) this.schedule();
    else if (!this.scheduled && !this.lazyTimer) {
      // Under load the next urgent group takes it first (the timer then finds nothing to write).
      this.lazyTimer = setTimeout(() => {
        this.lazyTimer = undefined;
        if (!this.scheduled) this.writeNow();
      }, LAZY_WRITE_MS);
      this.lazyTimer.unref();
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.writeGroup());
  }

  /** Resolves once every line queued so far is written (and with fsync 'always', on the disk). */
  durable(): Promise<void> {
    if (this.buffer.length === 0 && this.waiters.length === 0) return Promise.resolve();
    this.schedule();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private writeGroup(): void {
    this.scheduled = false;
    const waiters = this.waiters;
    this.waiters = [];
    try {
      this.writeNow();
    } catch (err) {
      for (const w of waiters) w.reject(err as Error);
      return;
    }
    const seg = this.active;
    if (this.fsync !== 'always' || seg?.fd === undefined) {
      for (const w of waiters) w.resolve();
      return;
    }
    syncSegment(seg, seg.fd, (err) => {
      for (const w of waiters) err ? w.reject(err) : w.resolve();
    });
  }

  /** Writes the queued lines now, synchronously (one write for the group). */
  writeNow(): void {
    if (this.buffer.length === 0 || this.active?.fd === undefined) return;
    const text = `${this.buffer.join('\n')}\n`;
    this.buffer = [];
    fs.writeSync(this.active.fd, text);
    this.dirty = true;
  }

  private syncInBackground(): void {
    const seg = this.active;
    if (!this.dirty || this.syncing || seg?.fd === undefined) return;
    this.dirty = false;
    this.syncing = true;
    syncSegment(seg, seg.fd, () => (this.syncing = false));
  }

  /** Resolves once what is written to the active segment is on the disk. */
  syncActive(): Promise<void> {
    const seg = this.active;
    if (seg?.fd === undefined) return Promise.resolve();
    return new Promise((resolve, reject) => syncSegment(seg, seg.fd!, (err) => (err ? reject(err) : resolve())));
  }

  /** Closes the active segment; a complete segment goes to the disk in the background (`wait`: at once). */
  private closeActive(wait = false): void {
    const seg = this.active;
    if (seg?.fd === undefined) return;
    const fd = seg.fd;
    seg.fd = undefined;
    if (wait && this.fsync !== 'off') fs.fdatasyncSync(fd);
    else if (this.fsync !== 'off') syncSegment(seg, fd, () => undefined);
    // An fsync still in flight on the descriptor closes it when it is done (never a closed or reused number).
    if (seg.syncs > 0) seg.closingFd = fd;
    else fs.closeSync(fd);
  }

  /** Writes what is queued, closes the active segment and stops the background sync. */
  close(): void {
    this.writeNow();
    this.closeActive(true);
    if (this.syncTimer) clearInterval(this.syncTimer);
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }
}

/** fsyncs `fd` of `seg` in the background; the last one to finish after the segment closed releases the descriptor. */
function syncSegment(seg: Segment, fd: number, done: (err: Error | null) => void): void {
  seg.syncs++;
  fs.fdatasync(fd, (err) => {
    seg.syncs--;
    if (seg.syncs === 0 && seg.closingFd !== undefined) {
      fs.close(seg.closingFd, () => undefined);
      seg.closingFd = undefined;
    }
    done(err);
  });
}
