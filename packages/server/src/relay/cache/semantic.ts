import type { Logger } from 'pino';
import type { Index } from 'usearch';
import type { Db } from '../../db/connect.js';
import type { ClusterBus } from '../../lib/cluster-bus.js';

/** Bus topic of prompt embeddings stored on any node: `<part>|<key>|<expiresAt>|<float32 base64>`. */
const TOPIC = 'response-cache-vectors';
/** Most prompt embeddings a node holds, whatever max_entries says (about 120 MB at 1,536 dimensions). */
export const SEMANTIC_MAX_VECTORS = 20_000;
/** The HNSW graph's links per node (usearch's default). */
const HNSW_CONNECTIVITY = 16;
/** Embeddings stored between two deletions of expired ones from the database. */
const PRUNE_EVERY = 256;

type Usearch = typeof import('usearch');

/** One partition's index: usearch's HNSW graph (cosine) and the cache key of each of its labels. */
interface Partition {
  index: Index;
  dims: number;
  keys: Map<bigint, { key: string; expiresAt: number }>;
  next: bigint;
}

const encode = (v: Float32Array): string => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
function decode(text: string): Float32Array {
  const b = Buffer.from(text, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/**
 * Semantic mode's index: the prompt embedding of each stored answer, searched by cosine similarity with usearch
 * (an HNSW index) within one partition only (the caller's scope and the request's other parameters: never across
 * scopes). Embeddings are kept in the main database (`response_cache_vectors`), read at start, and shared with
 * other nodes through the bus. At most SEMANTIC_MAX_VECTORS (and max_entries) are held; an expired embedding or
 * one whose answer is gone is dropped when a search finds it.
 */
export class SemanticIndex {
  private readonly parts = new Map<string, Partition>();
  private held = 0;
  private sincePrune = 0;
  /**
   * usearch, loaded when the first embedding is kept (its native build loads then, not at every start); null when it
   * could not be loaded on this platform (semantic mode then finds nothing and keeps nothing).
   */
  private lib: Usearch | null | undefined;

  constructor(
    private readonly db: Db,
    private readonly bus: ClusterBus,
    private readonly log: Logger,
  ) {}

  async start(limit: number): Promise<void> {
    this.bus.subscribe(TOPIC, (message) => {
      const [part, key, expiresAt, vector] = message.split('|');
      if (part && key && vector)
        void this.load().then(() => this.hold(part, key, decode(vector), Number(expiresAt), limit));
    });
    try {
      const rows = await this.db.kysely
        .selectFrom('response_cache_vectors')
        .select(['cache_key', 'part', 'vector', 'expires_at'])
        .where('expires_at', '>', Math.floor(Date.now() / 1000))
        .orderBy('id', 'desc')
        .limit(Math.min(limit, SEMANTIC_MAX_VECTORS))
        .execute();
      if (rows.length) await this.load();
      for (const r of rows) this.hold(r.part, r.cache_key, decode(r.vector), Number(r.expires_at) * 1000, limit);
    } catch (err) {
      this.log.warn({ err }, 'response cache: could not read the prompt embeddings');
    }
  }

  /** Loads usearch once; a platform without its native build leaves semantic mode without an index (warned once). */
  private async load(): Promise<void> {
    if (this.lib !== undefined) return;
    try {
      this.lib = await import('usearch');
    } catch (err) {
      this.lib = null;
      this.log.warn({ err }, 'response cache: usearch could not be loaded; semantic mode finds nothing');
    }
  }

  /** Embeddings held in memory. */
  get size(): number {
    return this.held;
  }

  /** The cache key of the nearest prompt of the partition at least `threshold` similar (cosine), else undefined. */
  nearest(part: string, vector: Float32Array, threshold: number): string | undefined {
    const p = this.parts.get(part);
    if (!p || p.dims !== vector.length || p.keys.size === 0) return undefined;
    const found = p.index.search(vector, 1, 1);
    if (found.keys.length === 0) return undefined;
    const label = found.keys[0]!;
    const entry = p.keys.get(label);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.remove(part, p, label);
      return undefined;
    }
    return 1 - found.distances[0]! >= threshold ? entry.key : undefined;
  }

  /** Drops an embedding whose answer is gone from the cache. */
  forget(part: string, key: string): void {
    const p = this.parts.get(part);
    if (!p) return;
    for (const [label, entry] of p.keys) if (entry.key === key) this.remove(part, p, label);
  }

  /** Keeps the embedding of an answer just stored: here, in the database and on the other nodes. */
  async add(part: string, key: string, vector: Float32Array, expiresAt: number, limit: number): Promise<void> {
    await this.load();
    if (!this.hold(part, key, vector, expiresAt, limit)) return;
    const k = this.db.kysely;
    await k
      .insertInto('response_cache_vectors')
      .values({ cache_key: key, part, vector: encode(vector), expires_at: Math.ceil(expiresAt / 1000) })
      .execute();
    if (++this.sincePrune >= PRUNE_EVERY) {
      this.sincePrune = 0;
      await k
        .deleteFrom('response_cache_vectors')
        .where('expires_at', '<=', Math.floor(Date.now() / 1000))
        .execute();
    }
    await this.bus.publish(TOPIC, `${part}|${key}|${expiresAt}|${encode(vector)}`);
  }

  /** Adds an embedding to its partition's index; false when full, expired or of another size than the partition's. */
  private hold(part: string, key: string, vector: Float32Array, expiresAt: number, limit: number): boolean {
    const lib = this.lib;
    if (!lib || expiresAt <= Date.now() || this.held >= Math.min(limit, SEMANTIC_MAX_VECTORS) || vector.length === 0)
      return false;
    let p = this.parts.get(part);
    if (!p) {
      const { Index, MetricKind, ScalarKind } = lib;
      const index = new Index(vector.length, MetricKind.Cos, ScalarKind.F32, HNSW_CONNECTIVITY);
      p = { index, dims: vector.length, keys: new Map(), next: 1n };
      this.parts.set(part, p);
    }
    if (p.dims !== vector.length) return false;
    const label = p.next++;
    p.index.add(label, vector);
    p.keys.set(label, { key, expiresAt });
    this.held++;
    return true;
  }

  private remove(part: string, p: Partition, label: bigint): void {
    p.index.remove(label);
    p.keys.delete(label);
    this.held--;
    if (p.keys.size === 0) this.parts.delete(part);
  }
}
