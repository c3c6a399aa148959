import type { Generated } from 'kysely';

/**
 * A cached relay answer (migrations/0028_response_cache.ts): the answer's bytes as the caller received them (an SSE
 * stream or a JSON body), its status and content type, and the usage it was billed on. Times are epoch seconds.
 */
export interface ResponseCacheTable {
  id: Generated<number>;
  /** sha256 (hex) of the scope, client format, model and canonical request (relay/cache/key.ts). */
  cache_key: string;
  model: string;
  status: number;
  content_type: string;
  body: string;
  /** The CallUsage the answer was billed on, as JSON. */
  usage: string;
  bytes: number;
  created_at: number;
  expires_at: number;
}

/** A stored answer's prompt embedding (semantic mode), in the partition of its scope and parameters. */
export interface ResponseCacheVectorsTable {
  id: Generated<number>;
  cache_key: string;
  /** sha256 (hex) of the scope, client format, model and the request without its prompt (relay/cache/semantic-key.ts). */
  part: string;
  /** Float32 values, base64. */
  vector: string;
  expires_at: number;
}
