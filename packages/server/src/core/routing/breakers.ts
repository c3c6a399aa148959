import { Breaker, type BreakerState, type Outcome, type Transition } from './breaker.js';
import type { BreakerSettings } from './breaker-settings.js';

/** A breaker's name in the cluster: the channel id, or `id:keyIndex` for one key of a multi-key channel. */
export type Target = string;

export const targetOf = (channelId: number, keyIndex?: number): Target =>
  keyIndex === undefined ? String(channelId) : `${channelId}:${keyIndex}`;

export function parseTarget(t: Target): { channelId: number; keyIndex: number | undefined } | undefined {
  const [id, key] = t.split(':');
  const channelId = Number(id);
  const keyIndex = key === undefined ? undefined : Number(key);
  if (!Number.isSafeInteger(channelId) || (keyIndex !== undefined && !Number.isSafeInteger(keyIndex))) return undefined;
  return { channelId, keyIndex };
}

/** A channel's health as the channel list shows it (the shared schema's channelHealth). */
export interface ChannelHealth {
  state: BreakerState;
  /** Epoch seconds the cool-down ends (open), else 0. */
  open_until: number;
  /** Failed share of the calls in the window (0–1); 0 without calls. */
  error_rate: number;
  /** Calls counted in the window. */
  requests: number;
  /** Median time to the upstream's first byte of answered calls in the window, ms; 0 without any. */
  p50_latency_ms: number;
  /** Keys of a multi-key channel whose breaker is not closed: index → state. */
  keys: Record<string, BreakerState>;
}

const CLOSED_HEALTH: ChannelHealth = {
  state: 'closed',
  open_until: 0,
  error_rate: 0,
  requests: 0,
  p50_latency_ms: 0,
  keys: {},
};

/** What selection knows of a channel: its id and, for a multi-key channel, which keys are enabled. */
export interface Routable {
  id: number;
  multiKey: boolean;
  keyEnabled: readonly boolean[];
}

/** Told of every state change made on this node (the cluster sync publishes them, metrics count them). */
export type TransitionListener = (target: Target, t: Transition) => void;

/** Told of every state a channel's breaker takes here, whoever made the change (the health gauge). */
export type StateListener = (channelId: number, state: BreakerState) => void;

/**
 * The breakers of every channel and key, node-local. Selection asks `blocked`/`keyBlocked` (a Map lookup,
 * nothing else while the breaker is closed); attempts report through `record`. Windows count this node's calls;
 * open and half-open states are shared through the listener (see breaker-sync.ts).
 */
export class ChannelBreakers {
  private readonly channels = new Map<number, Breaker>();
  private readonly keys = new Map<number, Map<number, Breaker>>();
  private readonly listeners: TransitionListener[] = [];
  private readonly stateListeners: StateListener[] = [];
  /** Without a cluster a breaker half-opens by itself; with one, the sync claims the probe. */
  private local = true;

  constructor(
    readonly settings: () => BreakerSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A cluster claims probes through Redis from now on. */
  useCluster(): void {
    this.local = false;
  }

  onTransition(listener: TransitionListener): void {
    this.listeners.push(listener);
  }

  onState(listener: StateListener): void {
    this.stateListeners.push(listener);
  }

  /** Tells the state listeners of a channel breaker's state (after a change made outside this class). */
  observe(target: Target): void {
    const parsed = parseTarget(target);
    const b = parsed && parsed.keyIndex === undefined ? this.channels.get(parsed.channelId) : undefined;
    if (parsed && b) for (const l of this.stateListeners) l(parsed.channelId, b.state);
  }

  /**
   * Whether selection skips the channel: its breaker is open (or half-open with the probe out), or, for a
   * multi-key channel, every enabled key's is. Breakers switched off skip nothing.
   */
  blocked(c: Routable): boolean {
    const b = this.channels.get(c.id);
    if (b !== undefined && b.state !== 'closed' && this.settings().enabled) {
      const before = b.state;
      const blocked = b.blocked(this.clock());
      if (b.state !== before) this.observe(targetOf(c.id));
      if (blocked) return true;
    }
    return c.multiKey && this.keys.has(c.id) && this.settings().enabled && this.allKeysBlocked(c.id, c.keyEnabled);
  }

  private allKeysBlocked(channelId: number, enabled: readonly boolean[]): boolean {
    const keys = this.keys.get(channelId);
    if (keys === undefined) return false;
    let usable = 0;
    for (let i = 0; i < enabled.length; i++) {
      if (!enabled[i]) continue;
      usable++;
      if (!this.keyBlocked(channelId, i)) return false;
    }
    return usable > 0;
  }

  /** Whether key `index` of a multi-key channel is skipped. */
  keyBlocked(channelId: number, index: number): boolean {
    const b = this.keys.get(channelId)?.get(index);
    return b !== undefined && b.state !== 'closed' && this.settings().enabled && b.blocked(this.clock());
  }

  /** The call goes to this channel (and key of a multi-key channel): a half-open breaker's probe is out. */
  picked(channelId: number, keyIndex: number | undefined): void {
    const b = this.channels.get(channelId);
    const keys = this.keys.get(channelId);
    if (b === undefined && keys === undefined) return;
    const now = this.clock();
    b?.take(now);
    if (keyIndex !== undefined) keys?.get(keyIndex)?.take(now);
  }

  /** An attempt's outcome on a channel (and key, for a multi-key channel). */
  record(channelId: number, keyIndex: number | undefined, outcome: Outcome, latencyMs: number): void {
    const s = this.settings();
    if (!s.enabled) return;
    const now = this.clock();
    // A multi-key channel's own breaker only counts: its keys open and close, each on its own failures.
    this.emit(targetOf(channelId), this.breaker(channelId).record(outcome, latencyMs, s, now, keyIndex === undefined));
    if (keyIndex !== undefined)
      this.emit(targetOf(channelId, keyIndex), this.keyBreaker(channelId, keyIndex).record(outcome, latencyMs, s, now));
  }

  /** Opens the channel's breaker now (a test found the upstream failing). */
  trip(channelId: number): void {
    const s = this.settings();
    if (!s.enabled) return;
    const b = this.breaker(channelId);
    if (b.state === 'open') return;
    this.emit(targetOf(channelId), b.open(s, this.clock()));
  }

  /** Closes the channel's breaker and its keys' (the channel was edited or enabled by hand). */
  reset(channelId: number): void {
    const now = this.clock();
    const b = this.channels.get(channelId);
    if (b && b.state !== 'closed') this.emit(targetOf(channelId), b.close(now));
    for (const [i, k] of this.keys.get(channelId) ?? [])
      if (k.state !== 'closed') this.emit(targetOf(channelId, i), k.close(now));
  }

  /** Another node's change (no listener is told: it is not this node's news). */
  apply(target: Target, t: Transition): void {
    const parsed = parseTarget(target);
    if (!parsed) return;
    const b =
      parsed.keyIndex === undefined
        ? this.breaker(parsed.channelId)
        : this.keyBreaker(parsed.channelId, parsed.keyIndex);
    b.apply(t, this.clock());
    this.observe(target);
  }

  /** Every breaker that is not closed, by target. */
  *tripped(): Generator<[Target, Breaker]> {
    for (const [id, b] of this.channels) if (b.state !== 'closed') yield [targetOf(id), b];
    for (const [id, keys] of this.keys) for (const [i, b] of keys) if (b.state !== 'closed') yield [targetOf(id, i), b];
  }

  /** The breaker of a target, when one exists. */
  find(target: Target): Breaker | undefined {
    const parsed = parseTarget(target);
    if (!parsed) return undefined;
    return parsed.keyIndex === undefined
      ? this.channels.get(parsed.channelId)
      : this.keys.get(parsed.channelId)?.get(parsed.keyIndex);
  }

  /** Reports a change made here (a cluster claim or release). */
  announce(target: Target, t: Transition): void {
    this.emit(target, t);
  }

  /**
   * The channel's health for the channel list. `enabledKeys` (a multi-key channel's enabled key indexes): when
   * every one of them is open or half-open, so is the channel.
   */
  health(channelId: number, enabledKeys?: readonly number[]): ChannelHealth {
    if (!this.settings().enabled) return CLOSED_HEALTH;
    const b = this.channels.get(channelId);
    const now = this.clock();
    const keys: Record<string, BreakerState> = {};
    let keysUntil = Infinity;
    for (const [i, k] of this.keys.get(channelId) ?? []) {
      if (k.state === 'open') k.blocked(now);
      if (k.state === 'closed') continue;
      keys[String(i)] = k.state;
      if (k.state === 'open') keysUntil = Math.min(keysUntil, k.until);
    }
    const allKeys =
      enabledKeys !== undefined && enabledKeys.length > 0 && enabledKeys.every((i) => keys[String(i)] !== undefined);
    if (!b) return Object.keys(keys).length ? { ...CLOSED_HEALTH, keys } : CLOSED_HEALTH;
    const { windowMs } = this.settings();
    const { requests, failures } = b.window(now, windowMs);
    // Reading the state half-opens a local breaker whose cool-down ended, as selection would.
    if (b.state === 'open') b.blocked(now);
    let state = b.state;
    let until = b.state === 'open' ? b.until : 0;
    if (state === 'closed' && allKeys) {
      state = Number.isFinite(keysUntil) && enabledKeys.every((i) => keys[String(i)] === 'open') ? 'open' : 'half_open';
      until = state === 'open' ? keysUntil : 0;
    }
    return {
      state,
      open_until: until ? Math.ceil(until / 1000) : 0,
      error_rate: requests ? Math.round((failures / requests) * 1000) / 1000 : 0,
      requests,
      p50_latency_ms: Math.round(b.p50(now, windowMs) ?? 0),
      keys,
    };
  }

  /** Channel ids with a breaker, and their state (metrics). */
  states(): Array<[number, BreakerState]> {
    return [...this.channels].map(([id, b]) => [id, b.state]);
  }

  /** Drops a deleted channel's breakers. */
  forget(channelId: number): void {
    if (this.channels.has(channelId)) for (const l of this.stateListeners) l(channelId, 'closed');
    this.channels.delete(channelId);
    this.keys.delete(channelId);
  }

  private emit(target: Target, t: Transition | undefined): void {
    if (!t) return;
    for (const l of this.listeners) l(target, t);
    this.observe(target);
  }

  private breaker(id: number): Breaker {
    let b = this.channels.get(id);
    if (!b) this.channels.set(id, (b = new Breaker(this.local)));
    return b;
  }

  private keyBreaker(id: number, index: number): Breaker {
    let keys = this.keys.get(id);
    if (!keys) this.keys.set(id, (keys = new Map()));
    let b = keys.get(index);
    if (!b) keys.set(index, (b = new Breaker(this.local)));
    return b;
  }
}
