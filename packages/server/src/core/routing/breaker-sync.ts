import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterBus } from '../../lib/cluster-bus.js';
import { PROBE_LEASE_MS, type BreakerState, type Transition } from './breaker.js';
import type { ChannelBreakers, Target } from './breakers.js';

/** How often due breakers claim their probe. */
const CLAIM_TICK_MS = 1000;
/** How often this node compares its open breakers with Redis (and puts back what Redis lost). */
const REFRESH_MS = 5000;
/** Bus topic of breaker changes. */
const TOPIC = 'breaker';
const STATES: readonly BreakerState[] = ['closed', 'open', 'half_open'];

const encode = (t: Transition) => `${t.state}|${t.until}|${t.opens}`;

function decode(text: string): Transition | undefined {
  const [state, until, opens] = text.split('|');
  if (!STATES.includes(state as BreakerState)) return undefined;
  const t = { state: state as BreakerState, until: Number(until), opens: Number(opens) };
  return Number.isFinite(t.until) && Number.isFinite(t.opens) ? t : undefined;
}

/**
 * Shares breaker states across nodes. Each open breaker is a small Redis key (`brk:<target>`, TTL past its
 * cool-down) listed in the set `brk:index`; changes are published on the bus at once and every node compares
 * with Redis every few seconds (an open breaker Redis lost is written back). When a cool-down ends, one node
 * wins the probe (`brk:probe:<target>`, SET NX with a lease); the others keep the breaker half-open without it.
 * Nothing here runs on a relay call: selection reads the local breakers only.
 */
export class BreakerSync {
  private readonly nodeId = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  private claimTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private claiming = false;
  private lastWarn = 0;

  constructor(
    private readonly breakers: ChannelBreakers,
    private readonly redis: Redis,
    private readonly bus: ClusterBus,
    private readonly prefix: string,
    private readonly log: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  private key = (target: Target) => `${this.prefix}brk:${target}`;
  private probeKey = (target: Target) => `${this.prefix}brk:probe:${target}`;
  private get index() {
    return `${this.prefix}brk:index`;
  }

  start(): void {
    this.breakers.useCluster();
    this.breakers.onTransition((target, t) => void this.publish(target, t).catch((err) => this.warn(err)));
    this.bus.subscribe(TOPIC, (message) => {
      const at = message.indexOf('|');
      const t = decode(message.slice(at + 1));
      if (at > 0 && t) this.breakers.apply(message.slice(0, at), t);
    });
    this.claimTimer = setInterval(() => void this.claimDue().catch((err) => this.warn(err)), CLAIM_TICK_MS);
    this.claimTimer.unref();
    this.refreshTimer = setInterval(() => void this.refresh().catch((err) => this.warn(err)), REFRESH_MS);
    this.refreshTimer.unref();
    void this.refresh().catch((err) => this.warn(err));
  }

  stop(): void {
    clearInterval(this.claimTimer);
    clearInterval(this.refreshTimer);
  }

  /** Writes a change made here to Redis and tells the other nodes. */
  async publish(target: Target, t: Transition): Promise<void> {
    if (t.state === 'open') await this.store(target, t);
    else if (t.state === 'closed')
      await this.redis.multi().del(this.key(target)).del(this.probeKey(target)).srem(this.index, target).exec();
    await this.bus.publish(TOPIC, `${target}|${encode(t)}`);
  }

  private async store(target: Target, t: Transition): Promise<void> {
    const ttl = Math.max(1, t.until - this.clock()) + this.breakers.settings().maxCooldownMs + PROBE_LEASE_MS;
    await this.redis
      .multi()
      .set(this.key(target), encode(t), 'PX', ttl)
      .del(this.probeKey(target))
      .sadd(this.index, target)
      .pexpire(this.index, ttl)
      .exec();
  }

  /** Open breakers whose cool-down ended try to win the probe; a probe lost or silent too long is claimed anew. */
  async claimDue(): Promise<void> {
    if (this.claiming) return;
    this.claiming = true;
    try {
      const now = this.clock();
      for (const [target, b] of [...this.breakers.tripped()]) {
        if (b.state === 'half_open' && now - (b.probeSince || b.since) >= PROBE_LEASE_MS) {
          b.due(now);
          this.breakers.observe(target);
        }
        if (b.state !== 'open' || now < b.until) continue;
        const won = await this.redis.set(this.probeKey(target), this.nodeId, 'PX', PROBE_LEASE_MS, 'NX');
        if (b.state !== 'open') continue;
        b.halfOpen(won === 'OK', this.clock());
        if (won === 'OK') this.breakers.announce(target, { state: 'half_open', until: b.until, opens: b.opens });
        else this.breakers.observe(target);
      }
    } finally {
      this.claiming = false;
    }
  }

  /** Takes what Redis holds and writes back the open breakers it lost (a restart, an eviction). */
  async refresh(): Promise<void> {
    const members = await this.redis.smembers(this.index);
    const values = members.length ? await this.redis.mget(members.map(this.key)) : [];
    const held = new Set<Target>();
    const gone: Target[] = [];
    members.forEach((target, i) => {
      const t = values[i] ? decode(values[i]!) : undefined;
      if (!t) return void gone.push(target);
      held.add(target);
      this.breakers.apply(target, t);
    });
    if (gone.length) await this.redis.srem(this.index, ...gone);
    const now = this.clock();
    for (const [target, b] of [...this.breakers.tripped()]) {
      if (b.state === 'open' && b.until > now && !held.has(target))
        await this.store(target, { state: 'open', until: b.until, opens: b.opens });
    }
  }

  private warn(err: unknown): void {
    const now = this.clock();
    if (now - this.lastWarn < REFRESH_MS) return;
    this.lastWarn = now;
    this.log.warn({ err: (err as Error).message }, 'channel breaker sync: redis failed');
  }
}
