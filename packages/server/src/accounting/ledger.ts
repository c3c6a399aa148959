/**
 * Live balances of users and tokens, in memory. Reservations and settlements change them atomically (one
 * synchronous check-and-change per call, so concurrent requests can never overdraw); the database follows
 * through the batched writer. The database value is the balance minus what is reserved or not yet written.
 */
export interface Balance {
  /** Spendable now: database value − outstanding reservations − settled amounts not yet written. */
  available: number;
  /** Reserved by requests in flight. */
  reserved: number;
  /** Settled but not yet committed to the database. */
  unflushed: number;
}

export interface ReserveTarget {
  userId: number;
  /** Undefined for an unlimited token. */
  tokenId: number | undefined;
  /** A subscription (user_subscriptions.id) the call draws from instead of the user's wallet; undefined: the wallet. */
  planId?: number | undefined;
}

/**
 * A reservation in force; opaque to callers, handed back to settle. After the settle it rides on the write
 * record (`WriteRecord.lease`) so the ledger can release what the node still holds once the charge is committed.
 */
export interface Hold {
  amount: number;
  /**
   * Epochs of the Redis balances (user, token) the reservation was taken from; after the settle, those the
   * charge is booked to ('' where the balance was absent). Redis ledger only.
   */
  gens?: [number | string, number | string];
  /** The node the lease, then the charge, is booked to (Redis ledger only). */
  node?: string;
  /** When the hold was counted under period limits (epoch ms; relay/limits/period-ledger.ts); absent: not counted. */
  periodAt?: number;
}

/** Wallets (users.quota), limited tokens (remain_quota) and subscription plans (amount_total − amount_used). */
export type BalanceKind = 'users' | 'tokens' | 'plans';

/** The balance a call's charge leaves besides the token's: the plan it draws from, else the user's wallet. */
export function payerOf(t: { userId: number; planId?: number | undefined }): { kind: 'users' | 'plans'; id: number } {
  return t.planId ? { kind: 'plans', id: t.planId } : { kind: 'users', id: t.userId };
}

/** Where a hold gives its amount back: the node it is booked to and the balances' epochs ('' when unknown). */
const holdPlace = (h: Hold): string => `${h.node ?? ''}|${h.gens?.[0] ?? ''}|${h.gens?.[1] ?? ''}`;

/** A write record's payer field for a target: the plan it draws from, or nothing (the wallet). */
export function planOf(t: { planId?: number | undefined }): { planId?: number } {
  return t.planId ? { planId: t.planId } : {};
}

/**
 * Several holds of one call as one, so that settling it gives them back and takes the charge in one atomic step:
 * released one by one first, what they held could be reserved by a concurrent call before the charge takes it,
 * leaving a delivered answer short. Holds booked where the last one is (the same node and balance epochs; every
 * hold of the memory ledger) add up into `hold`; `others` were taken before the node or an epoch changed (their
 * give-back is nothing or stale) and are released on their own.
 */
export function combineHolds(holds: readonly Hold[]): { hold: Hold; others: Hold[] } {
  const last = holds.at(-1);
  if (!last) throw new Error('combineHolds: no holds');
  const place = holdPlace(last);
  let amount = 0;
  const others: Hold[] = [];
  for (const h of holds) {
    if (holdPlace(h) === place) amount += h.amount;
    else others.push(h);
  }
  const hold: Hold = { amount };
  if (last.gens) hold.gens = [...last.gens];
  if (last.node !== undefined) hold.node = last.node;
  // Settled in the earliest period counted: a later period keeps its holds counted in full (never less than charged).
  const counted = holds.filter((h) => h.periodAt !== undefined && holdPlace(h) === place).map((h) => h.periodAt!);
  if (counted.length) hold.periodAt = Math.min(...counted);
  return { hold, others };
}

/** What the ledger reads of a committed write record (see WriteRecord). */
export interface LedgerRecord {
  userId: number;
  /** 0 when no token was involved. */
  tokenId: number;
  /** False for unlimited tokens: only used_quota moves. */
  tokenLimited: boolean;
  /** Quota charged; 0 for log-only records. */
  quota: number;
  /** The subscription the charge is drawn from (its amount_used grows, the wallet stays); absent: the wallet. */
  planId?: number;
  /** The settled reservation, for the ledger to release once the charge is committed (absent for log-only records). */
  lease?: Hold;
}

/** Live balances: reserve before a call, settle after; memory for one node, Redis for a cluster. */
export interface Ledger {
  /**
   * Holds up to `amount` from the user and (for a limited token) the token, both or neither, atomically: as much of
   * it as both balances have, at least `minimum` (default: all of it), else the balance that is short. The hold's
   * `amount` says how much was taken.
   */
  reserve(t: ReserveTarget, amount: number, minimum?: number): Promise<Hold | 'user' | 'token'>;
  /** Ends a reservation with the actual charge (taken only as far as the balance goes); returns the charge. */
  settle(t: ReserveTarget, hold: Hold, actual: number): Promise<number>;
  /** Spendable balance now, or undefined for an unknown id. */
  available(kind: BalanceKind, id: number): Promise<number | undefined>;
  /** The database value changed outside the relay (admin edit, top-up): take it up. */
  refresh(kind: BalanceKind, id: number): Promise<void>;
  /** The writer is about to commit these records to the database (a Redis ledger fences its reconciliation). */
  beforeCommit(records: readonly LedgerRecord[]): Promise<void>;
  /** The writer committed these records' charges to the database. */
  committed(records: readonly LedgerRecord[]): void;
  /** The commit of these records failed (they stay in the journal and are retried). */
  commitFailed(records: readonly LedgerRecord[]): void;
  /** Starts background work (a Redis ledger joins the cluster and reconciles); once the writer's journal is replayed. */
  start(): Promise<void>;
  /** Stops it; after the writer stopped, so its last commits are released. */
  stop(): Promise<void>;
}

type Loader = (ids: number[]) => Promise<Map<number, number>>;

/** The loader of a ledger without subscription plans: none is known. */
const noPlans: Loader = () => Promise.resolve(new Map());

class Book {
  readonly entries = new Map<number, Balance>();
  private readonly loading = new Map<number, Promise<void>>();

  constructor(readonly load: Loader) {}

  async ensure(id: number): Promise<Balance | undefined> {
    const hit = this.entries.get(id);
    if (hit) return hit;
    let p = this.loading.get(id);
    if (!p) {
      p = this.load([id]).then((m) => {
        const v = m.get(id);
        if (v !== undefined && !this.entries.has(id)) this.entries.set(id, { available: v, reserved: 0, unflushed: 0 });
      });
      this.loading.set(id, p);
      p.finally(() => this.loading.delete(id)).catch(() => undefined);
    }
    await p;
    return this.entries.get(id);
  }

  /** Replaces the base with a fresh database value, keeping what is reserved or unwritten. */
  rebase(id: number, dbValue: number): void {
    const e = this.entries.get(id);
    if (!e) return;
    e.available = dbValue - e.reserved - e.unflushed;
  }
}

/** Balances in this process's memory (one node). */
export class MemoryLedger implements Ledger {
  readonly users: Book;
  readonly tokens: Book;
  readonly plans: Book;

  /**
   * `serialize` runs a refresh between writer batches, so a database value and the unwritten amounts are
   * read consistently.
   */
  constructor(
    loadUsers: Loader,
    loadTokens: Loader,
    private readonly serialize: (fn: () => Promise<void>) => Promise<void>,
    loadPlans: Loader = noPlans,
  ) {
    this.users = new Book(loadUsers);
    this.tokens = new Book(loadTokens);
    this.plans = new Book(loadPlans);
  }

  private book(kind: BalanceKind): Book {
    return kind === 'users' ? this.users : kind === 'tokens' ? this.tokens : this.plans;
  }

  /** The book of a target's payer (payerOf without an object per call: this is the relay's hot path). */
  private payerBook(t: { planId?: number | undefined }): Book {
    return t.planId ? this.plans : this.users;
  }

  async available(kind: BalanceKind, id: number): Promise<number | undefined> {
    return (await this.book(kind).ensure(id))?.available;
  }

  refresh(kind: BalanceKind, id: number): Promise<void> {
    const book = this.book(kind);
    if (!book.entries.has(id)) return Promise.resolve();
    return this.serialize(async () => {
      const v = (await book.load([id])).get(id);
      if (v === undefined) book.entries.delete(id);
      else book.rebase(id, v);
    });
  }

  beforeCommit(): Promise<void> {
    return Promise.resolve();
  }

  committed(records: readonly LedgerRecord[]): void {
    for (const r of records) if (r.quota) this.flushed(r, r.tokenLimited ? r.tokenId : undefined, r.quota);
  }

  commitFailed(): void {
    // The unwritten amounts stay counted until the retry commits them.
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Reserves up to `amount` (at least `minimum`) from the user and (for a limited token) the token, both or
   * neither. Synchronous after the entries are loaded, so two requests cannot both see the same balance.
   */
  async reserve(t: ReserveTarget, amount: number, minimum = amount): Promise<Hold | 'user' | 'token'> {
    const payer = this.payerBook(t);
    const payerId = t.planId || t.userId;
    let u = payer.entries.get(payerId);
    let tok = t.tokenId === undefined ? undefined : this.tokens.entries.get(t.tokenId);
    // Loaded entries (every call after a payer's first) are taken as they are, without a turn for each to load.
    if (!u || (t.tokenId !== undefined && !tok))
      [u, tok] = await Promise.all([
        payer.ensure(payerId),
        t.tokenId === undefined ? undefined : this.tokens.ensure(t.tokenId),
      ]);
    if (!u) return 'user';
    if (t.tokenId !== undefined && !tok) return 'token';
    // A free call (amount 0) needs no balance; any charge needs at least `minimum` (and more than 0) available.
    let take = amount;
    if (amount > 0) {
      const least = Math.max(minimum, 1);
      if (u.available < least) return 'user';
      if (tok && tok.available < least) return 'token';
      if (u.available < take) take = u.available;
      if (tok && tok.available < take) take = tok.available;
    }
    u.available -= take;
    u.reserved += take;
    if (tok) {
      tok.available -= take;
      tok.reserved += take;
    }
    return { amount: take };
  }

  /**
   * Ends a reservation with the actual charge. A charge above the reservation takes what is available (never
   * below zero); returns the amount actually charged.
   */
  async settle(t: ReserveTarget, hold: Hold, actual: number): Promise<number> {
    const reserved = hold.amount;
    const u = this.payerBook(t).entries.get(t.planId || t.userId)!;
    const tok = t.tokenId === undefined ? undefined : this.tokens.entries.get(t.tokenId);
    u.reserved -= reserved;
    u.available += reserved;
    if (tok) {
      tok.reserved -= reserved;
      tok.available += reserved;
    }
    let charge = actual;
    if (charge > u.available) charge = Math.max(0, u.available);
    if (tok && charge > tok.available) charge = Math.max(0, tok.available);
    u.available -= charge;
    u.unflushed += charge;
    if (tok) {
      tok.available -= charge;
      tok.unflushed += charge;
    }
    return charge;
  }

  /** The writer committed `amount` for the record's payer and token. */
  flushed(payerIds: { userId: number; planId?: number }, tokenId: number | undefined, amount: number): void {
    const u = this.payerBook(payerIds).entries.get(payerIds.planId || payerIds.userId);
    if (u) u.unflushed -= amount;
    const tok = tokenId === undefined ? undefined : this.tokens.entries.get(tokenId);
    if (tok) tok.unflushed -= amount;
  }

  peekUser(id: number): Balance | undefined {
    return this.users.entries.get(id);
  }

  peekToken(id: number): Balance | undefined {
    return this.tokens.entries.get(id);
  }
}
