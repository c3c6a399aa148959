import type { CachedChannel } from '../../../core/routing/channel-cache.js';
import { baseUrlOf } from '../base-url.js';
import { compatibleTarget } from '../openai/vendors.js';
import type { JsonObject } from '../../ir/json-data.js';

/** A rerank answer as Jina (and Cohere, without usage) sends it; a document may be its text or `{text}`. */
type UpstreamRerank = {
  results?: { index?: number; relevance_score?: number; document?: string | { text?: string } }[];
  usage?: { total_tokens?: number; prompt_tokens?: number };
};

/** A rerank call as Tollway's `/v1/rerank` takes it (Jina's shape, as new-api does). */
export interface RerankRequest {
  model: string;
  query: string;
  documents: string[];
  topN?: number;
  returnDocuments?: boolean;
}

/** A rerank answer in Jina's shape plus the usage to bill (`promptTokens` undefined: the upstream gave none). */
export interface RerankAnswer {
  body: {
    model: string;
    results: { index: number; relevance_score: number; document?: { text: string } }[];
    usage: { prompt_tokens: number; total_tokens: number };
  };
  promptTokens: number | undefined;
}

/** The upstream side of a rerank call for one kind of channel. */
export interface RerankUpstream {
  target(channel: CachedChannel, key: string): { url: URL; headers: Record<string, string> };
  requestBody(r: RerankRequest): JsonObject;
  answer(body: JsonObject, r: RerankRequest): RerankAnswer;
}

const resultsOf = (answer: JsonObject, r: RerankRequest): RerankAnswer['body']['results'] =>
  ((answer as UpstreamRerank).results ?? []).map((x) => {
    const index = Number(x.index ?? 0);
    const text = typeof x.document === 'string' ? x.document : (x.document?.text ?? r.documents[index]);
    return {
      index,
      relevance_score: Number(x.relevance_score ?? 0),
      ...(r.returnDocuments && text !== undefined ? { document: { text: String(text) } } : {}),
    };
  });

/**
 * Jina (type 38) and every OpenAI-compatible vendor serving Jina's rerank shape: `{base}{prefix}/rerank`
 * (`/v1/rerank`), Bearer key, body {model, query, documents, top_n, return_documents}, usage.total_tokens.
 */
export const jinaRerank: RerankUpstream = {
  target(channel, key) {
    const t = compatibleTarget(channel, key, '/v1/rerank');
    return {
      url: new URL(baseUrlOf(channel, 'https://api.jina.ai') + t.path),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
    };
  },
  requestBody: (r) => ({
    model: r.model,
    query: r.query,
    documents: r.documents,
    ...(r.topN !== undefined ? { top_n: r.topN } : {}),
    ...(r.returnDocuments !== undefined ? { return_documents: r.returnDocuments } : {}),
  }),
  answer(answer, r) {
    const body = answer as UpstreamRerank;
    const tokens = body.usage?.total_tokens ?? body.usage?.prompt_tokens;
    const promptTokens = tokens === undefined ? undefined : Number(tokens);
    return {
      body: {
        model: r.model,
        results: resultsOf(answer, r),
        usage: { prompt_tokens: promptTokens ?? 0, total_tokens: promptTokens ?? 0 },
      },
      promptTokens,
    };
  },
};

export { resultsOf as rerankResultsOf };
