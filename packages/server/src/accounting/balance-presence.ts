import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { PRIVATE_FILE_MODE } from '../lib/private-files.js';
import { balanceMetrics } from './balance-metrics.js';
import { HEARTBEAT, LEAD, LEAVE } from './balance-scripts.js';

const NODE_ID_BYTES = 8;
const NODE_ID_PATTERN = /^[0-9a-f]{16}$/;

export interface PresenceTiming {
  /** Milliseconds between heartbeats. */
  heartbeatMs: number;
  /** A node whose last heartbeat is older than this is dead: its outstanding amounts are dropped. */
  nodeTtlMs: number;
  /** How long a leader keeps the reconciliation lock without renewing it. */
  leaseMs: number;
}

/**
 * This process in the cluster: a random node id announced by heartbeat in `<prefix>nodes`, and the reconciliation
 * leader lock. A node the others gave up for dead (no heartbeat within the ttl: a long pause, Redis out of reach)
 * takes a new id when it notices, so nothing it books afterwards lands in fields already written off.
 */
export class ClusterPresence {
  private id = newNodeId();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private joined = false;
  private readonly nodesKey: string;
  private readonly leaderKey: string;
  private readonly renamed: ((old: string) => void)[] = [];

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly timing: PresenceTiming,
    private readonly log: Logger,
    /** Where this node's id is kept (in DATA_DIR), so a restart retires the id of the process it replaces. */
    private readonly idFile?: string,
  ) {
    this.nodesKey = `${prefix}nodes`;
    this.leaderKey = `${prefix}reconcile:leader`;
  }

  /** The node id in use now. */
  get node(): string {
    return this.id;
  }

  get nodes(): string {
    return this.nodesKey;
  }

  /** Called with the old id when this node takes a new one. */
  onRenamed(fn: (old: string) => void): void {
    this.renamed.push(fn);
  }

  /** Announces this node and keeps announcing it (a failed beat is logged and tried again at the next). */
  async start(): Promise<void> {
    await this.retirePrevious();
    const beat = () => this.beat().catch((err) => this.log.warn({ err }, 'cluster heartbeat failed'));
    this.timer = setInterval(() => void beat(), this.timing.heartbeatMs);
    this.timer.unref();
    await beat();
  }

  /**
   * A process that died on this data folder still looks live to the others until its heartbeat is old, keeping
   * its leases counted, its commit markers blocking reconciliation and perhaps the leader lock. Its bills are in
   * the journal this start just replayed, so its id leaves the cluster now and the first pass writes it off.
   */
  private async retirePrevious(): Promise<void> {
    if (!this.idFile) return;
    let previous = '';
    try {
      previous = fs.readFileSync(this.idFile, 'utf8').trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (NODE_ID_PATTERN.test(previous) && previous !== this.id) {
      await LEAVE.run(this.redis, [this.leaderKey, this.nodesKey], [previous]);
      this.log.info(
        { previous, node: this.id },
        'cluster: retired the node id of the previous process on this data folder',
      );
    }
    this.saveId();
  }

  private saveId(): void {
    if (this.idFile) fs.writeFileSync(this.idFile, `${this.id}\n`, { mode: PRIVATE_FILE_MODE });
  }

  /** Stops the heartbeat and leaves (the lock too); the next reconciliation drops what this node still holds. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating?.catch(() => undefined);
    await LEAVE.run(this.redis, [this.leaderKey, this.nodesKey], [this.id]);
  }

  /** Stops beating without leaving, as a crash would (tests). */
  halt(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Takes a new id now (what this node holds under the old one is written off by the next reconciliation). */
  rename(reason: string): void {
    const old = this.id;
    this.id = newNodeId();
    this.joined = false;
    this.log.warn({ old, node: this.id, reason }, 'cluster: this node takes a new id');
    this.saveId();
    for (const fn of this.renamed) fn(old);
  }

  beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async beatOnce(): Promise<void> {
    let live = Number(
      await HEARTBEAT.run(this.redis, [this.nodesKey], [this.id, this.timing.nodeTtlMs, this.joined ? '0' : '1']),
    );
    if (live < 0) {
      this.rename('the cluster gave this node up for dead');
      live = Number(await HEARTBEAT.run(this.redis, [this.nodesKey], [this.id, this.timing.nodeTtlMs, '1']));
    }
    this.joined = true;
    balanceMetrics.liveNodes.set(live);
  }

  /** Takes or renews the reconciliation lock; true while this node leads. */
  async lead(): Promise<boolean> {
    return (
      Number(
        await LEAD.run(
          this.redis,
          [this.leaderKey, this.nodesKey],
          [this.id, this.timing.leaseMs, this.timing.nodeTtlMs],
        ),
      ) === 1
    );
  }
}

function newNodeId(): string {
  return crypto.randomBytes(NODE_ID_BYTES).toString('hex');
}
