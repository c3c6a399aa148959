import { baseUrlOf } from '../base-url.js';
import { rerankResultsOf, type RerankUpstream } from '../jina/rerank.js';

/**
 * Cohere rerank v2: `{base}/v2/rerank`, Bearer key, body {model, query, documents, top_n}; the answer has
 * results [{index, relevance_score}] and meta.billed_units.search_units but no token count, so the caller
 * counts the prompt itself (promptTokens undefined). Documents are returned from the request when asked.
 */
export const cohereRerank: RerankUpstream = {
  target(channel, key) {
    return {
      url: new URL(`${baseUrlOf(channel)}/v2/rerank`),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    };
  },
  requestBody: (r) => ({
    model: r.model,
    query: r.query,
    documents: r.documents,
    ...(r.topN !== undefined ? { top_n: r.topN } : {}),
  }),
  answer(body, r) {
    return {
      body: { model: r.model, results: rerankResultsOf(body, r), usage: { prompt_tokens: 0, total_tokens: 0 } },
      promptTokens: undefined,
    };
  },
};
