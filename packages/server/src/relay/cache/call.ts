/**
 * What the cache reads of a relay call (relay/pipeline/types.ts InboundCall has all of it). Declared here so the
 * cache, which the relay's services hold, does not import the pipeline's types (they import the services).
 */
export interface CacheableCall {
  format: { name: string };
  openaiEndpoint?: string;
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /** A surface that forwards and meters itself (images, audio…): never cached. */
  surface?: unknown;
  usageCost?: boolean;
}
