import type { Config } from '../../config.js';
import { RelayError } from '../pipeline/errors.js';

/** Seconds a caller refused for spool space is told to wait (uploads in flight finish in seconds). */
const RETRY_AFTER_SECONDS = '5';
const MB = 1024 * 1024;

const refusal = (status: number, message: string, code: string) => {
  const e = new RelayError(status, message, status === 429 ? 'rate_limit_error' : 'invalid_request_error', code);
  // The rest of the body is not read: the connection is not reused.
  e.headers = { connection: 'close', ...(status === 429 ? { 'retry-after': RETRY_AFTER_SECONDS } : {}) };
  return e;
};

/**
 * The bytes of upload spools (temporary files of multipart bodies) on disk, per caller and for the whole process,
 * each under its cap (UPLOAD_SPOOL_CALLER_MB, UPLOAD_SPOOL_TOTAL_MB). A spool takes its bytes before writing them
 * (an announced length at once, a chunked body chunk by chunk) and gives them back once its file is removed.
 * The per-caller map holds only callers with a spool open: an entry leaves when its count is back at zero.
 */
export class SpoolBudget {
  private total = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(
    readonly callerCap: number,
    readonly totalCap: number,
  ) {}

  /** A lease for one spool of `caller` (a user id: all of a user's tokens share the cap). */
  lease(caller: string): SpoolLease {
    return new SpoolLease(this, caller);
  }

  /** Bytes held now, in all and by a caller. */
  spooled(caller?: string): number {
    return caller === undefined ? this.total : (this.byCaller.get(caller) ?? 0);
  }

  /** Takes `n` more bytes for a spool already holding `held`; throws the refusal when a cap would be passed. */
  take(caller: string, held: number, n: number): void {
    const total = held + n;
    if (total > this.callerCap || total > this.totalCap)
      throw refusal(
        413,
        `the upload is larger than the ${Math.floor(Math.min(this.callerCap, this.totalCap) / MB)} MB this gateway spools for one caller`,
        'upload_too_large',
      );
    const mine = this.byCaller.get(caller) ?? 0;
    if (mine + n > this.callerCap)
      throw refusal(
        429,
        `too many uploads in flight: at most ${Math.floor(this.callerCap / MB)} MB of uploads per account at once; retry when one has finished`,
        'upload_limit_exceeded',
      );
    if (this.total + n > this.totalCap)
      throw refusal(
        429,
        'the gateway is receiving as many uploads as it holds at once; retry shortly',
        'upload_limit_exceeded',
      );
    this.byCaller.set(caller, mine + n);
    this.total += n;
  }

  give(caller: string, n: number): void {
    if (n <= 0) return;
    const left = (this.byCaller.get(caller) ?? 0) - n;
    if (left > 0) this.byCaller.set(caller, left);
    else this.byCaller.delete(caller);
    this.total = Math.max(0, this.total - n);
  }
}

/** One spool's share of the budget: grows to the bytes it holds, given back once by `release`. */
export class SpoolLease {
  private held = 0;

  constructor(
    private readonly budget: SpoolBudget,
    private readonly caller: string,
  ) {}

  /** Holds `bytes` in all for this spool (no-op when it holds that much already). */
  hold(bytes: number): void {
    if (bytes <= this.held) return;
    this.budget.take(this.caller, this.held, bytes - this.held);
    this.held = bytes;
  }

  release(): void {
    this.budget.give(this.caller, this.held);
    this.held = 0;
  }
}

const budgets = new WeakMap<Config, SpoolBudget>();

/** The spool budget of a running server (one per configuration object). */
export function spoolBudgetOf(config: Config): SpoolBudget {
  let b = budgets.get(config);
  if (!b) budgets.set(config, (b = new SpoolBudget(config.uploadSpoolCallerBytes, config.uploadSpoolTotalBytes)));
  return b;
}
