import { jinaRerank, type RerankUpstream } from './jina/rerank.js';
import { descriptorFor } from './registry.js';

export type { RerankAnswer, RerankRequest, RerankUpstream } from './jina/rerank.js';

/**
 * The rerank upstream of a channel type: its provider's own (Cohere's API); Jina's shape (at the vendor's
 * OpenAI-compatible prefix) for Jina and every other type.
 */
export const rerankUpstreamFor = (type: number): RerankUpstream => descriptorFor(type)?.rerank ?? jinaRerank;
