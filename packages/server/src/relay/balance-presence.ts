import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { balanceMetrics } from './balance-metrics.js';
import { HEARTBEAT, LEAD, LEAVE } from './balance-scripts.js';

const NODE_ID_BYTES = 8;

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
    const beat = () => this.beat().catch((err) => this.log.warn({ err }, 'cluster heartbeat failed'));
    this.timer = setInterval(() => void beat(), this.timing.heartbeatMs);
    this.timer.unref();
    await beat();
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
    for (const fn of this.renamed) fn(old);
  }

  beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async beatOnce(): Promise<void> {
    let live = Number(await HEARTBEAT.run(this.redis, [this.nodesKey], [this.id, this.timing.nodeTtlMs, this.joined ? '0' : '1']));
    if (live < 0) {
      this.rename('the cluster gave this node up for dead');
      live = Number(await HEARTBEAT.run(this.redis, [this.nodesKey], [this.id, this.timing.nodeTtlMs, '1']));
    }
    this.joined = true;
    balanceMetrics.liveNodes.set(live);
  }

  /** Takes or renews the reconciliation lock; true while this node leads. */
  async lead(): Promise<boolean> {
    return Number(await LEAD.run(this.redis, [this.leaderKey, this.nodesKey], [this.id, this.timing.leaseMs, this.timing.nodeTtlMs])) === 1;
  }
}

function newNodeId(): string {
  return crypto.randomBytes(NODE_ID_BYTES).toString('hex');
}
