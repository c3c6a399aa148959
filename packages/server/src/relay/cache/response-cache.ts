import type { Logger } from 'pino';
import { RESPONSE_CACHE_MAX_ENTRIES_LIMIT } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';
import type { ClusterBus } from '../../lib/cluster-bus.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { countResponseCache } from '../../lib/metrics.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import type { CacheableCall } from './call.js';
import type { AnswerCapture } from './capture.js';
import { cacheable, cacheKey } from './key.js';
import { optedIn, readCacheRules, scopeOf, type CacheRules } from './rules.js';
import type { AnswerStore, CachedAnswer, StoredKey } from './store.js';
import type { SemanticIndex } from './semantic.js';

/** Bus topic of keys stored (`<key>|<expiresAt>`) and dropped (`-<key>`) on any node. */
const TOPIC = 'response-cache';
/** Answers kept in this node's memory too (the most read), and the largest kept there: at most 16 MiB. */
const MEMORY_ANSWERS = 256;
const MEMORY_ANSWER_MAX_BYTES = 64 * 1024;

/** A call the cache applies to: its key, the rules it was matched under, and (on a miss) its answer being captured. */
export interface CacheMatch {
  key: string;
  /** The caller's scope (`t:<token>`, `u:<user>` or `g:<group>`): semantic mode's partitions are within it. */
  scope: string;
  rules: CacheRules;
  capture: AnswerCapture | undefined;
  /** Semantic mode, on a miss: the prompt's embedding and partition, kept with the answer when it is stored. */
  semantic?: { part: string; vector: Float32Array };
}

/**
 * The response cache (docs/operating/response-cache.md). Answers live in a store (the database, or Redis in a
 * cluster); each node keeps an index of the keys the store holds (key → expiry), learnt at start and from the bus,
 * so a miss is decided in memory: no I/O unless the key is there. The index is bounded by max_entries (its entries
 * expire with their answers); a key it dropped is a miss that stores the answer again. The answers read most
 * are kept in memory as well (MEMORY_ANSWERS of at most MEMORY_ANSWER_MAX_BYTES), so a hot hit reads no store.
 */
export class ResponseCache {
  private rules: CacheRules | undefined;
  private index: BoundedMap<string, number>;
  private readonly answers = new BoundedMap<string, CachedAnswer>({ maxEntries: MEMORY_ANSWERS });
  private readonly saving = new Set<Promise<void>>();
  /** Answers this node stored since it started. */
  stores = 0;

  constructor(
    private readonly options: OptionsService,
    private readonly store: AnswerStore,
    private readonly bus: ClusterBus,
    private readonly log: Logger,
    /** Semantic mode's index of prompt embeddings (used when response_cache.semantic_enabled). */
    readonly semantic?: SemanticIndex,
  ) {
    this.index = new BoundedMap({ maxEntries: RESPONSE_CACHE_MAX_ENTRIES_LIMIT });
    options.onChange(() => {
      this.rules = undefined;
    });
  }

  /** Learns the keys the store holds and follows other nodes' stores; a store that cannot be read starts empty. */
  async start(): Promise<void> {
    this.bus.subscribe(TOPIC, (message) => {
      if (message.startsWith('-')) this.forget(message.slice(1));
      else {
        const at = message.indexOf('|');
        if (at > 0) this.learn({ key: message.slice(0, at), expiresAt: Number(message.slice(at + 1)) });
      }
    });
    const r = this.current();
    this.resize(r.maxEntries);
    try {
      for (const k of await this.store.keys(Date.now(), r.maxEntries)) this.learn(k);
    } catch (err) {
      this.log.warn({ err }, 'response cache: could not read the stored keys');
    }
    await this.semantic?.start(r.maxEntries);
  }

  private current(): CacheRules {
    let r = this.rules;
    if (r === undefined) {
      r = this.rules = readCacheRules(this.options);
      if (r.maxEntries !== this.index.capacity) this.resize(r.maxEntries);
    }
    return r;
  }

  /** The index bounded anew (max_entries changed): the newest keys kept. */
  private resize(maxEntries: number): void {
    const next = new BoundedMap<string, number>({ maxEntries });
    const now = Date.now();
    for (const [key, expiresAt] of this.index) if (expiresAt > now) next.set(key, expiresAt, expiresAt - now, now);
    this.index = next;
  }

  private forget(key: string): void {
    this.index.delete(key);
    this.answers.delete(key);
  }

  /** Keeps a small answer in memory until it expires. */
  private hold(key: string, a: CachedAnswer, now: number): void {
    if (a.body.length <= MEMORY_ANSWER_MAX_BYTES && a.expiresAt > now) this.answers.set(key, a, a.expiresAt - now, now);
  }

  private learn(k: StoredKey): void {
    const now = Date.now();
    if (k.expiresAt > now) this.index.set(k.key, k.expiresAt, k.expiresAt - now, now);
  }

  /**
   * The cache's key of a call it applies to (on, opted in by model, group or token, and cacheable), else undefined.
   * Synchronous; with the cache off it reads one flag.
   */
  match(auth: TokenAuth, group: string, call: CacheableCall): CacheMatch | undefined {
    const r = this.current();
    if (!r.enabled || !optedIn(r, call.model, group, auth.tokenId) || !cacheable(call)) return undefined;
    const scope = scopeOf(r, auth.userId, auth.tokenId, group);
    return { key: cacheKey(scope, call), scope, rules: r, capture: undefined };
  }

  /**
   * The answer cached under the match's key (the caller counts the hit or miss). A miss the index decides (the usual one) is answered at once,
   * undefined, with no I/O and no promise; a key it knows is read from memory, else from the store.
   */
  find(m: CacheMatch): CachedAnswer | Promise<CachedAnswer | undefined> | undefined {
    const now = Date.now();
    if (this.index.get(m.key, now) === undefined) return undefined;
    return this.answers.get(m.key, now) ?? this.read(m.key, now);
  }

  /** A key the index knows, read from the store (kept in memory when found, forgotten when not). */
  private async read(key: string, now: number): Promise<CachedAnswer | undefined> {
    const answer = await this.store.get(key, now).catch((err: unknown) => {
      this.log.warn({ err }, 'response cache: lookup failed');
      return undefined;
    });
    if (answer) this.hold(key, answer, now);
    else this.forget(key);
    return answer;
  }

  /** Stores an answer served on a miss (in the background: `idle()` waits for it). */
  save(m: CacheMatch, answer: CachedAnswer): void {
    const p = this.put(m, answer).finally(() => this.saving.delete(p));
    this.saving.add(p);
  }

  private async put(m: CacheMatch, answer: CachedAnswer): Promise<void> {
    try {
      const dropped = await this.store.put(m.key, answer, m.rules.maxEntries);
      countResponseCache('store');
      this.learn({ key: m.key, expiresAt: answer.expiresAt });
      this.hold(m.key, answer, Date.now());
      await this.bus.publish(TOPIC, `${m.key}|${answer.expiresAt}`);
      const near = m.semantic;
      if (near) await this.semantic?.add(near.part, m.key, near.vector, answer.expiresAt, m.rules.maxEntries);
      this.stores++;
      if (dropped.length) countResponseCache('evict', dropped.length);
      for (const d of dropped) {
        this.forget(d.key);
        await this.bus.publish(TOPIC, `-${d.key}`);
      }
    } catch (err) {
      this.log.warn({ err }, 'response cache: store failed');
    }
  }

  /** Keys in this node's index (expired ones not yet dropped included). */
  get indexed(): number {
    return this.index.size;
  }

  /** Resolves when the answers being stored are stored (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.saving.size) await Promise.all([...this.saving]);
  }
}
