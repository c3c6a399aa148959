import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterPresence } from './balance-presence.js';
import { FENCE, RELEASE } from './balance-scripts.js';
import { payerOf, type BalanceKind, type LedgerRecord } from './ledger.js';

/** Releases that could not reach Redis are tried again after this long. */
const RETRY_MS = 1_000;
/** More releases than this waiting for Redis: the node takes a new id instead (its fields get written off). */
const MAX_WAITING = 10_000;

interface Release {
  /** The node id the release belongs to; void once the node took a new one. */
  node: string;
  keys: string[];
  args: string[];
}

/**
 * The writer's commits as the Redis ledger sees them. Before a batch's transaction every balance it charges is
 * marked busy for this node (`c:<node>`), so no reconciliation pairs the database before the commit with the
 * outstanding amounts after it (or the reverse). Once committed, the mark goes, the balance's version moves on
 * and what the batch committed leaves this node's outstanding amount. Releases run in order; while Redis is out
 * of reach they wait in memory and are retried.
 */
export class CommitFence {
  private waiting: Release[] = [];
  private draining: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private failing = false;
  /** The node id the batch in progress was fenced under, and the epochs of the balances fenced. */
  private fencedAs: string | undefined;
  private fencedEpochs = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    private readonly keyOf: (kind: BalanceKind, id: number) => string,
    private readonly presence: ClusterPresence,
    private readonly log: Logger,
  ) {
    presence.onRenamed(() => (this.waiting = []));
  }

  /** The balances a record's charge moves: the payer's (wallet or plan) and a limited token's. */
  private keys(r: LedgerRecord): string[] {
    if (!r.quota) return [];
    const payer = payerOf(r);
    const user = this.keyOf(payer.kind, payer.id);
    return r.tokenLimited && r.tokenId ? [user, this.keyOf('tokens', r.tokenId)] : [user];
  }

  private charged(records: readonly LedgerRecord[]): string[] {
    return [...new Set(records.flatMap((r) => this.keys(r)))];
  }

  /** Marks the batch's balances busy (after any release still waiting, to keep their order). */
  async before(records: readonly LedgerRecord[]): Promise<void> {
    this.fencedAs = undefined;
    this.fencedEpochs = new Map();
    await this.drain();
    const keys = this.charged(records);
    if (!keys.length) return;
    const node = this.presence.node;
    // Set first: a mark whose answer got lost is still taken off.
    this.fencedAs = node;
    const epochs = (await FENCE.run(this.redis, keys, [node])) as string[];
    keys.forEach((key, i) => epochs[i] && this.fencedEpochs.set(key, epochs[i]));
  }

  /**
   * The batch is in the database: unmark, count the commit, move `d` by what the database moved and release
   * this node's committed charges.
   */
  committed(records: readonly LedgerRecord[]): void {
    const node = this.presence.node;
    const unfence = this.fencedAs === node ? '1' : '0';
    const fenced = this.fencedAs === node ? this.fencedEpochs : new Map<string, string>();
    const moved = new Map<string, number>();
    // Per balance and epoch: what this node booked as outstanding and has now committed.
    const booked = new Map<string, Map<string, number>>();
    for (const r of records) {
      const lease = r.lease?.node === node ? r.lease : undefined;
      this.keys(r).forEach((key, i) => {
        moved.set(key, (moved.get(key) ?? 0) + r.quota);
        const epoch = String(lease?.gens?.[i] ?? '');
        if (!epoch) return;
        const byEpoch = booked.get(key) ?? new Map<string, number>();
        byEpoch.set(epoch, (byEpoch.get(epoch) ?? 0) + r.quota);
        booked.set(key, byEpoch);
      });
    }
    const keys: string[] = [];
    const args: string[] = [node];
    for (const [key, total] of moved) {
      const entries = [...(booked.get(key) ?? new Map([['', 0]]))];
      entries.forEach(([epoch, amount], i) => {
        keys.push(key);
        args.push(i === 0 ? unfence : '0', fenced.get(key) ?? '', String(i === 0 ? total : 0), epoch, String(amount));
      });
    }
    this.fencedAs = undefined;
    this.queue({ node, keys, args });
  }

  /** The batch's transaction failed: unmark only (it is retried, fenced again). */
  failed(records: readonly LedgerRecord[]): void {
    const node = this.presence.node;
    if (this.fencedAs !== node) return;
    this.fencedAs = undefined;
    const keys = this.charged(records);
    this.queue({ node, keys, args: [node, ...keys.flatMap(() => ['1', '', '0', '', '0'])] });
  }

  private queue(release: Release): void {
    if (!release.keys.length) return;
    this.waiting.push(release);
    if (this.waiting.length > MAX_WAITING) {
      this.presence.rename('commit releases could not reach Redis');
      return;
    }
    this.drain().catch(() => undefined);
  }

  /** Runs the waiting releases in order; on failure they stay and are retried later. */
  drain(): Promise<void> {
    this.draining ??= this.runWaiting().finally(() => (this.draining = undefined));
    return this.draining;
  }

  private async runWaiting(): Promise<void> {
    while (this.waiting.length) {
      const next = this.waiting[0]!;
      if (next.node === this.presence.node) {
        try {
          await RELEASE.run(this.redis, next.keys, next.args);
        } catch (err) {
          if (!this.failing)
            this.log.warn(
              { err, waiting: this.waiting.length },
              'ledger: committed charges could not be released in Redis; retrying',
            );
          this.failing = true;
          if (!this.retry) {
            this.retry = setTimeout(() => {
              this.retry = undefined;
              this.drain().catch(() => undefined);
            }, RETRY_MS);
            this.retry.unref();
          }
          throw err;
        }
      }
      this.waiting.shift();
    }
    if (this.failing) this.log.info('ledger: committed charges released in Redis again');
    this.failing = false;
  }

  /** Waits (up to `timeoutMs`) for the waiting releases to reach Redis. */
  async settle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await this.drain();
      } catch (err) {
        if (Date.now() > deadline) {
          this.log.warn(
            { err, waiting: this.waiting.length },
            'ledger: stopping with commit releases not written to Redis; the next reconciliation repairs them',
          );
          return;
        }
        await new Promise((r) => setTimeout(r, RETRY_MS / 10));
      }
    }
  }

  stop(): void {
    clearTimeout(this.retry);
    this.retry = undefined;
  }
}
