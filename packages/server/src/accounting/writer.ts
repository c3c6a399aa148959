import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.js';
import { PRIVATE_DIR_MODE } from '../lib/private-files.js';
import { Journal, recordLine, Segment, type JournalFsync } from './journal.js';
import { readJournal } from './journal-recovery.js';
import type { WriteRecord } from './writer-apply.js';
import { commitBatch, type WriterBatch } from './writer-commit.js';
import { SqliteLogWorker } from './sqlite-log-worker.js';
import { replayLegacyJournal } from './writer-legacy.js';

export type { WriteRecord } from './writer-apply.js';

export interface WriterOptions {
  /** Folder of the journal (its `journal/` subfolder). */
  dataDir: string;
  /** The database of the logs table when it has its own (LOG_SQL_DSN); the main database when absent. */
  logDb?: Db;
  /**
   * On a SQLite file (logs in the same database), the thread that inserts the log rows (sqlite-log-worker.ts): one
   * started by the writer when absent, none with false (the batch's one transaction on the event loop).
   */
  logWorker?: SqliteLogWorker | false;
  flushIntervalMs?: number;
  maxBatch?: number;
  /** When journal lines reach the disk itself; 'interval' (default) every `fsyncIntervalMs`. */
  fsync?: JournalFsync;
  fsyncIntervalMs?: number;
  /** A segment kept only by calls open this long has their intents copied forward (default 5 s). */
  carryOpenCallsAfterMs?: number;
  /**
   * Whether a batch also adds its consume logs to the hourly aggregates (DataExportEnabled). Asked when the
   * batch's segment opens (never per call) and kept in its header, so a replay does the same.
   */
  hourlyUsage?: () => boolean;
  /** Called with a batch's records before its transaction; a failure is logged and the batch goes ahead. */
  beforeApply?: (records: WriteRecord[]) => Promise<void>;
  /** Called with a batch's records once it is committed. */
  onCommitted?: (records: WriteRecord[]) => void;
  /** Called with the copies a committed batch dropped (a task's charge or refund already applied): live balances that counted them are re-read. */
  onDropped?: (records: WriteRecord[]) => void;
  /** Called with a batch's records when its transaction failed (it is retried). */
  onApplyFailed?: (records: WriteRecord[]) => void;
  log: Logger;
}

const DEFAULT_FLUSH_INTERVAL_MS = 200;
const DEFAULT_MAX_BATCH = 1000;
const DEFAULT_FSYNC_INTERVAL_MS = 10;
const MAX_RETRY_DELAY_MS = 30_000;
const FIRST_RETRY_DELAY_MS = 250;
const DEFAULT_CARRY_OPEN_CALLS_AFTER_MS = 5_000;
const STOP_RETRY_MS = 200;

interface OpenCall {
  segment: Segment;
  /** The call's `o` line, written again if it is carried to a newer segment. */
  line: string;
}

/**
 * The one durable writer for counters and logs, over a write-ahead journal of segment files (accounting/journal.ts).
 * A relay call is opened (`begin`, its record at the reservation written before it goes upstream), then closed
 * by its settled record (`enqueue` with its id) or a refund (`release`). Every flush interval the active segment
 * becomes a batch applied in one transaction that records the segment's id; a segment is deleted once applied
 * and every call opened in it closed. On start, unapplied segments are applied and calls never closed are billed
 * at their reservation. The hot path only queues lines; the database is written here.
 */
export class DurableWriter {
  private journal: Journal | undefined;
  /** Segments not deleted yet, oldest first, the active one excluded. */
  private segments: Segment[] = [];
  private readonly calls = new Map<string, OpenCall>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly between: (() => Promise<void>)[] = [];
  private readonly journalDir: string;
  private failures = 0;
  private logWorker: SqliteLogWorker | undefined;
  private stopped = false;
  private callsDrained: (() => void) | undefined;
  /** When the oldest record not committed yet was queued (0: none), at most one batch early. */
  private pendingSince = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: WriterOptions,
  ) {
    this.journalDir = path.join(opts.dataDir, 'journal');
  }

  /** Applies what a previous run left (its journal), then opens a fresh segment; returns the records applied. */
  async start(): Promise<number> {
    fs.mkdirSync(this.opts.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const ownLogs = !this.opts.logDb || this.opts.logDb === this.db;
    if (ownLogs && this.db.sqlite && this.opts.logWorker !== false)
      this.logWorker = this.opts.logWorker || SqliteLogWorker.start(this.db.sqlite, (m) => this.opts.log.warn(m));
    let replayed = await replayLegacyJournal(this.opts.dataDir, (b) => this.apply(b), this.opts.log);
    const left = readJournal(this.journalDir);
    for (const batch of left.batches)
      if (batch.records.length && (await this.apply(batch))) replayed += batch.records.length;
    if (left.unsettled.length && (await this.apply({ id: `${left.lastId}:unsettled`, records: left.unsettled }))) {
      this.opts.log.warn(
        { calls: left.unsettled.length },
        'writer journal: billed calls left open by an unclean stop at their reservation',
      );
    }
    if (left.tornLines)
      this.opts.log.warn({ lines: left.tornLines }, 'writer journal: skipped torn lines (never acknowledged)');
    for (const file of left.files) fs.rmSync(file, { force: true });
    if (replayed) this.opts.log.warn({ records: replayed }, 'writer journal: replayed records left by an unclean stop');
    this.journal = new Journal(
      this.journalDir,
      this.opts.fsync ?? 'interval',
      this.opts.fsyncIntervalMs ?? DEFAULT_FSYNC_INTERVAL_MS,
      0,
    );
    this.journal.rotate(this.hourly());
    this.schedule();
    return replayed;
  }

  private hourly(): boolean {
    return this.opts.hourlyUsage?.() ?? false;
  }

  /** Applies a batch (writer-commit.ts); reports the copies it dropped. True when anything was applied. */
  private async apply(batch: WriterBatch): Promise<boolean> {
    const dropped: WriteRecord[] = [];
    const targets = { db: this.db, logDb: this.opts.logDb ?? this.db, logWorker: this.logWorker };
    const applied = await commitBatch(targets, batch, dropped);
    if (dropped.length) this.opts.onDropped?.(dropped);
    return applied;
  }

  /** The segment new lines go to; after a stop, a fresh one (its lines are applied at the next start). */
  private active(): Segment {
    const journal = this.journal;
    if (!journal) throw new Error('writer: not started');
    if (journal.active?.fd !== undefined) return journal.active;
    this.opts.log.warn('writer: a record arrived after the stop; it stays in the journal for the next start');
    return journal.rotate(this.hourly());
  }

  /**
   * Opens a call: `record` is what it costs if it never settles (its reservation). Resolves once the line is
   * written, which must happen before any answer reaches the caller.
   */
  begin(callId: string, record: WriteRecord): Promise<void> {
    const segment = this.active();
    const line = JSON.stringify({ k: 'o', i: callId, r: record });
    segment.open.add(callId);
    this.calls.set(callId, { segment, line });
    this.journal!.appendText(line);
    return this.journal!.durable();
  }

  /** Replaces an open call's opening line (its hold grew): a recovery bills the newest line, once. */
  amend(callId: string, record: WriteRecord): Promise<void> {
    this.calls.get(callId)?.segment.open.delete(callId);
    return this.begin(callId, record);
  }

  /**
   * Queues a record; with `callId` it is that call's settlement and closes it. `otherIsJson`: the log's `other` was
   * made by JSON.stringify (the journal then carries it without escaping it again).
   */
  enqueue(record: WriteRecord, callId?: string, otherIsJson = false): void {
    const segment = this.active();
    if (!this.pendingSince) this.pendingSince = Date.now();
    segment.records.push(record);
    // Not urgent: until it is written, the call's opening line stands for its bill.
    this.journal!.appendText(recordLine(record, callId, otherIsJson), false);
    if (callId) this.close(callId);
    if (segment.records.length >= (this.opts.maxBatch ?? DEFAULT_MAX_BATCH)) void this.flush();
  }

  /** Closes a call that charges nothing (refunded before any answer). */
  release(callId: string): void {
    this.active();
    this.journal!.append({ k: 'x', i: callId }, false);
    this.close(callId);
  }

  private close(callId: string): void {
    const call = this.calls.get(callId);
    if (!call) return;
    call.segment.open.delete(callId);
    this.calls.delete(callId);
    if (this.calls.size === 0) this.callsDrained?.();
  }

  /** Calls opened and not closed yet. */
  openCalls(): number {
    return this.calls.size;
  }

  /** Number of records not yet committed. */
  backlog(): number {
    const waiting = this.segments.reduce((n, s) => n + (s.applied ? 0 : s.records.length), 0);
    return waiting + (this.journal?.active?.records.length ?? 0);
  }

  /** Uncommitted records, how long the oldest has waited, and batch failures in a row (readiness, metrics). */
  health(): { backlog: number; lagMs: number; failures: number; openCalls: number } {
    return {
      backlog: this.backlog(),
      lagMs: this.pendingSince ? Date.now() - this.pendingSince : 0,
      failures: this.failures,
      openCalls: this.calls.size,
    };
  }

  /** Runs `fn` after the batch in progress, before the next one (serialised with commits). */
  afterCurrentBatch(fn: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.between.push(() => fn().then(resolve, reject));
      void this.flush();
    });
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = this.failures
      ? Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** this.failures)
      : (this.opts.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    this.timer = setTimeout(() => void this.flush().finally(() => this.schedule()), delay);
    this.timer.unref();
  }

  /** Writes everything queued so far; concurrent callers share one run. */
  flush(): Promise<void> {
    if (this.running)
      return this.running.then(() => (this.hasWork() || this.between.length ? this.flush() : undefined));
    this.running = this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Records waiting in the active segment or in segments not applied yet. */
  private hasWork(): boolean {
    return (this.journal?.active?.records.length ?? 0) > 0 || this.hasUnapplied();
  }

  private hasUnapplied(): boolean {
    return this.segments.some((s) => !s.applied);
  }

  private async run(): Promise<void> {
    const journal = this.journal;
    if (!journal) return;
    const startedAt = Date.now();
    // The active segment becomes the next batch once it carries records.
    const sealed = journal.active;
    if (sealed?.fd !== undefined && sealed.records.length) {
      journal.rotate(this.hourly());
      this.segments.push(sealed);
    }
    journal.writeNow();
    for (const segment of this.segments) {
      if (segment.applied) continue;
      if (segment.records.length && !(await this.applySegment(segment))) return;
      segment.applied = true;
    }
    // What arrived during this run waits since no earlier than its start.
    this.pendingSince = journal.active?.records.length ? startedAt : 0;
    while (this.between.length) await this.between.shift()!();
    await this.dropFinished();
  }

  private async applySegment(segment: Segment): Promise<boolean> {
    const records = segment.records;
    await this.opts
      .beforeApply?.(records)
      .catch((err) => this.opts.log.warn({ err }, 'writer: the ledger could not fence a commit; going ahead'));
    try {
      await this.apply({ id: segment.id, records, hourly: segment.hourly });
      this.failures = 0;
    } catch (err) {
      this.failures++;
      this.opts.onApplyFailed?.(records);
      this.opts.log.error({ err, records: records.length }, 'writer: batch failed, will retry (kept in journal)');
      return false;
    }
    this.opts.onCommitted?.(records);
    return true;
  }

  /** Deletes applied segments from the oldest, copying forward the intents of calls that keep one too long. */
  private async dropFinished(): Promise<void> {
    const journal = this.journal!;
    const carryAfterMs = this.opts.carryOpenCallsAfterMs ?? DEFAULT_CARRY_OPEN_CALLS_AFTER_MS;
    const done: Segment[] = [];
    for (const segment of this.segments) {
      if (!segment.applied) break;
      if (segment.open.size) {
        const target = journal.active;
        if (Date.now() - segment.createdAt < carryAfterMs || target?.fd === undefined) break;
        for (const id of segment.open) {
          const call = this.calls.get(id)!;
          journal.appendText(call.line);
          call.segment = target;
          target.open.add(id);
        }
        segment.open.clear();
      }
      done.push(segment);
    }
    if (!done.length) return;
    // A call that settled while its segment was applied left its settlement queued (lazily) and the carried calls
    // their copies: both are written (with 'always', on the disk) before the opening lines they replace go.
    journal.writeNow();
    if (this.opts.fsync === 'always') {
      const synced = await journal.syncActive().then(
        () => true,
        (err: unknown) => (
          this.opts.log.error({ err }, 'writer journal: fsync failed; applied segments are kept until it works'),
          false
        ),
      );
      if (!synced) return;
    }
    this.segments.splice(0, done.length);
    // Off the event loop: the segment is done, and a crash before the unlink only replays it as applied. The
    // flush ends when the files are gone, so a caller of flush() (or stop) never sees an applied segment linger.
    await Promise.all(done.map((segment) => fs.promises.unlink(segment.file).catch(() => undefined)));
  }

  /**
   * Waits for open calls to settle, flushes until every record is committed (retrying failures), then closes the
   * journal; with nothing left in it, its files are deleted. Bounded by `timeoutMs`: what is left is applied at
   * the next start.
   */
  async stop(timeoutMs = 20_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const deadline = Date.now() + timeoutMs;
    if (this.calls.size) {
      const drained = new Promise<void>((resolve) => (this.callsDrained = resolve));
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        drained,
        new Promise<void>((resolve) => (timeout = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
      ]);
      clearTimeout(timeout);
    }
    // A flush already running holds a batch that no queue shows any more: it is awaited, never raced.
    while (this.running || this.hasWork() || this.between.length) {
      await (this.running ?? this.flush());
      if (Date.now() > deadline) break;
      if (this.hasUnapplied()) await new Promise((r) => setTimeout(r, STOP_RETRY_MS));
    }
    const journal = this.journal;
    if (!journal) return;
    journal.close();
    await this.logWorker?.stop();
    const left = this.backlog();
    if (left || this.calls.size) {
      this.opts.log.error(
        { backlog: left, openCalls: this.calls.size },
        'writer: stopping with records or open calls left in the journal; they are applied at next start',
      );
      return;
    }
    for (const s of [...this.segments, journal.active]) if (s) fs.rmSync(s.file, { force: true });
    this.segments = [];
  }
}
