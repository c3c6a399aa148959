/** Per-table counts of an import, the values it could not map and why, and progress lines on stderr. */
const EXAMPLES = 5;
/** Refusals listed one line per row; past this many a table lists how many more there were. */
const LISTED_REFUSALS = 1000;
const PROGRESS_EVERY_MS = 1000;

type Counted = { count: number; examples: string[] };

function count(map: Map<string, Counted>, key: string, example: string): void {
  const entry = map.get(key) ?? { count: 0, examples: [] };
  entry.count++;
  if (entry.examples.length < EXAMPLES) entry.examples.push(example);
  map.set(key, entry);
}

const examples = (c: Counted) => `${c.examples.join(', ')}${c.count > c.examples.length ? ', …' : ''}`;

export class TableReport {
  read = 0;
  written = 0;
  /** Rows already in the target with the same id (an earlier run): left as they are. */
  present = 0;
  /** Reason → rows skipped for it (with a few examples). */
  readonly skipped = new Map<string, { count: number; examples: string[] }>();
  /** Values not carried over (or changed), reason → rows (with a few examples). */
  readonly notes = new Map<string, { count: number; examples: string[] }>();
  /** Quota columns' sums over skipped rows (the quota check leaves them out). */
  readonly skippedSums = new Map<string, number>();
  /** Values refused by Tollway's rules (roles, quotas), one entry per row: what was refused and what was done. */
  readonly refusals: { row: string; what: string }[] = [];
  private refusalsNotListed = 0;
  /** Lines naming what was done beside copying rows (e.g. a user merged into a target user). */
  readonly done: string[] = [];

  constructor(readonly table: string) {}

  skip(reason: string, example: string, sums: Record<string, number> = {}): void {
    count(this.skipped, reason, example);
    for (const [k, v] of Object.entries(sums)) this.skippedSums.set(k, (this.skippedSums.get(k) ?? 0) + v);
  }

  /** A value refused by the API's rules, listed with its row in the summary (`row`: e.g. "id 7"). */
  refuse(row: string, what: string): void {
    if (this.refusals.length < LISTED_REFUSALS) this.refusals.push({ row, what });
    else this.refusalsNotListed++;
  }

  note(what: string, example: string): void {
    count(this.notes, what, example);
  }

  get skippedCount(): number {
    let n = 0;
    for (const s of this.skipped.values()) n += s.count;
    return n;
  }

  lines(): string[] {
    const out = [
      `${this.table}: read ${this.read}, written ${this.written}, already present ${this.present}, skipped ${this.skippedCount}`,
    ];
    for (const [reason, s] of this.skipped) out.push(`  skipped ${s.count}: ${reason} (${examples(s)})`);
    for (const [what, s] of this.notes) out.push(`  not mapped in ${s.count} row(s): ${what} (${examples(s)})`);
    for (const r of this.refusals) out.push(`  refused ${r.row}: ${r.what}`);
    for (const line of this.done) out.push(`  ${line}`);
    if (this.refusalsNotListed) out.push(`  refused ${this.refusalsNotListed} more row(s), not listed`);
    return out;
  }
}

/** Progress of one table on stderr: rows done / total, rate and ETA, at most once a second plus the last line. */
export class Progress {
  private readonly start = Date.now();
  private lastPrint = 0;

  constructor(
    private readonly table: string,
    private readonly total: number,
    private readonly write: (line: string) => void,
  ) {}

  tick(done: number, final = false): void {
    const now = Date.now();
    if (!final && now - this.lastPrint < PROGRESS_EVERY_MS) return;
    this.lastPrint = now;
    const seconds = Math.max((now - this.start) / 1000, 0.001);
    const rate = done / seconds;
    const left = Math.max(this.total - done, 0);
    const eta = rate > 0 ? Math.ceil(left / rate) : 0;
    const pct = this.total > 0 ? Math.floor((done / this.total) * 100) : 100;
    this.write(`${this.table}: ${done}/${this.total} (${pct}%) ${Math.round(rate)} rows/s ETA ${final ? 0 : eta}s`);
  }
}
