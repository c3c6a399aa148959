import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.js';
import { nowSeconds } from '../lib/time.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../lib/private-files.js';
import { applyBatch, type WriteRecord } from './writer-apply.js';

export type { WriteRecord } from './writer-apply.js';

export interface WriterOptions {
  /** Folder of the journal file. */
  dataDir: string;
  /** The database of the logs table when it has its own (LOG_SQL_DSN); the main database when absent. */
  logDb?: Db;
  flushIntervalMs?: number;
  maxBatch?: number;
  /**
   * Whether a batch formed now also adds its consume logs to the hourly aggregates (DataExportEnabled). Asked
   * when the batch is formed (never per call) and kept with the batch in the journal, so a replay does the same.
   */
  hourlyUsage?: () => boolean;
  /** Called with a batch's records before its transaction; a failure is logged and the batch goes ahead. */
  beforeApply?: (records: WriteRecord[]) => Promise<void>;
  /** Called with a batch's records once it is committed. */
  onCommitted?: (records: WriteRecord[]) => void;
  /** Called with a batch's records when its transaction failed (it is retried). */
  onApplyFailed?: (records: WriteRecord[]) => void;
  log: Logger;
}

interface Batch {
  id: string;
  records: WriteRecord[];
  /** Set when the batch updates quota_data as well. */
  hourly?: true;
}

/**
 * The one durable batched writer for counters and logs. The relay only enqueues (no I/O on the hot path).
 * Every flush interval the queue becomes a batch: appended to a journal file (fsync), then applied in one
 * transaction that also records the batch id. After a crash, journal batches whose id is not in the database
 * are applied on start; SIGTERM flushes everything before exit.
 */
export class DurableWriter {
  private queue: WriteRecord[] = [];
  private pending: Batch[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly between: (() => Promise<void>)[] = [];
  private readonly journal: string;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly opts: WriterOptions,
  ) {
    this.journal = path.join(opts.dataDir, 'writer-journal.jsonl');
  }

  /** Replays unapplied journal batches, then starts the flush timer. */
  async start(): Promise<number> {
    fs.mkdirSync(this.opts.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    let replayed = 0;
    if (fs.existsSync(this.journal)) {
      // The journal holds usage records of every caller: readable by the owner only.
      fs.chmodSync(this.journal, PRIVATE_FILE_MODE);
      const lines = fs.readFileSync(this.journal, 'utf8').split('\n').filter(Boolean);
      for (const line of lines) {
        let batch: Batch;
        try {
          batch = JSON.parse(line) as Batch;
        } catch {
          this.opts.log.warn('writer journal: skipped a torn line (it was never applied)');
          continue;
        }
        const applied = await this.apply(batch);
        if (applied) replayed += batch.records.length;
      }
      fs.truncateSync(this.journal, 0);
      if (replayed) this.opts.log.warn({ records: replayed }, 'writer journal: replayed records left by an unclean stop');
    }
    this.schedule();
    return replayed;
  }

  /**
   * Applies a batch in one transaction, or with a separate log database in two (counters first, then logs),
   * each recording the batch id in its own database: a batch half applied before a failure or crash has only
   * its other half applied on retry or replay. True when anything was applied.
   */
  private async apply(batch: Batch): Promise<boolean> {
    const now = nowSeconds();
    const hourly = batch.hourly ? this.db.dialect : undefined;
    const logDb = this.opts.logDb ?? this.db;
    if (logDb === this.db) return this.db.kysely.transaction().execute((trx) => applyBatch(trx, batch.id, batch.records, now, { counters: true, logs: true, hourly }));
    const counted = await this.db.kysely.transaction().execute((trx) => applyBatch(trx, batch.id, batch.records, now, { counters: true, logs: false, hourly }));
    const logged = await logDb.kysely.transaction().execute((trx) => applyBatch(trx, batch.id, batch.records, now, { counters: false, logs: true }));
    return counted || logged;
  }

  enqueue(record: WriteRecord): void {
    this.queue.push(record);
    if (this.queue.length >= (this.opts.maxBatch ?? 1000)) void this.flush();
  }

  /** Number of records not yet committed. */
  backlog(): number {
    return this.queue.length + this.pending.reduce((n, b) => n + b.records.length, 0);
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
    const delay = this.failures ? Math.min(30_000, 250 * 2 ** this.failures) : (this.opts.flushIntervalMs ?? 200);
    this.timer = setTimeout(() => void this.flush().finally(() => this.schedule()), delay);
    this.timer.unref();
  }

  /** Writes everything queued so far; concurrent callers share one run. */
  flush(): Promise<void> {
    if (this.running) return this.running.then(() => (this.queue.length || this.between.length ? this.flush() : undefined));
    this.running = this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<void> {
    if (this.queue.length) {
      const batch: Batch = { id: crypto.randomUUID(), records: this.queue, hourly: this.opts.hourlyUsage?.() || undefined };
      this.queue = [];
      await fs.promises.appendFile(this.journal, `${JSON.stringify(batch)}\n`, { flush: true, mode: PRIVATE_FILE_MODE });
      this.pending.push(batch);
    }
    while (this.pending.length) {
      const batch = this.pending[0]!;
      try {
        await this.apply(batch);
        this.failures = 0;
      } catch (err) {
        this.failures++;
        this.opts.log.error({ err, records: batch.records.length }, 'writer: batch failed, will retry (kept in journal)');
        return;
      }
      this.pending.shift();
      this.opts.onCommitted?.(batch.records);
    }
    while (this.between.length) await this.between.shift()!();
    if (this.pending.length === 0 && this.queue.length === 0) await fs.promises.truncate(this.journal, 0).catch(() => undefined);
  }

  /** Flushes until empty (retrying failures for up to `timeoutMs`), then stops the timer. */
  async stop(timeoutMs = 20_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length || this.pending.length || this.between.length) {
      await this.flush();
      if (Date.now() > deadline) {
        this.opts.log.error({ backlog: this.backlog() }, 'writer: stopping with records left in the journal; they are applied at next start');
        return;
      }
      if (this.pending.length) await new Promise((r) => setTimeout(r, 200));
    }
  }
}
