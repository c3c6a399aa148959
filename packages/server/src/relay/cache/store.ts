import type { CallUsage } from '../billing/usage.js';

/** One cached answer: as the caller received it (an SSE stream or a JSON body) and the usage it was billed on. */
export interface CachedAnswer {
  model: string;
  status: number;
  contentType: string;
  body: string;
  usage: CallUsage;
  /** Epoch ms at which the answer is gone. */
  expiresAt: number;
}

/** A key the store holds and when it expires (epoch ms): what a node's index of the cache is built from. */
export interface StoredKey {
  key: string;
  expiresAt: number;
}

/** Where cached answers are kept: the main database (db-store.ts), or Redis when one is configured (redis-store.ts). */
export interface AnswerStore {
  get(key: string, now: number): Promise<CachedAnswer | undefined>;
  /** Keeps the answer under `key` (replacing one there), then drops expired answers and the oldest past `maxEntries`. */
  put(key: string, answer: CachedAnswer, maxEntries: number): Promise<StoredKey[]>;
  delete(key: string): Promise<void>;
  /** The live keys, at most `limit`, newest first (a node starting up learns what the cache holds). */
  keys(now: number, limit: number): Promise<StoredKey[]>;
}

/** The answer's usage as stored (JSON text). */
export const usageText = (usage: CallUsage): string => JSON.stringify(usage);

/** A stored usage read back; one that is not an object reads as no tokens (a hit then bills nothing). */
export function usageOf(text: string): CallUsage {
  try {
    const u = JSON.parse(text) as CallUsage;
    if (u && typeof u === 'object' && typeof u.promptTokens === 'number') return u;
  } catch {
    // fall through
  }
  return { promptTokens: 0, completionTokens: 0, reported: false };
}
