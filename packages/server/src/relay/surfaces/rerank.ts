import type { RelayRequest } from '../entry/request.js';
import { relayErrors } from '../pipeline/errors.js';
import { bodyModel, invalidParam, MAX_TOKEN_LIMIT } from '../entry/validate.js';
import { parseJsonBody } from '../entry/inbound.js';
import { openAIChat } from '../providers/openai/chat.js';
import { parseData } from '../ir/json-data.js';
import { rerankUpstreamFor, type RerankRequest } from '../providers/rerank-upstream.js';
import type { CallUsage } from '../billing/usage.js';
import { countedUsage, forwardBuffered } from './upstream.js';
import type { InboundCall, Surface } from '../pipeline/types.js';

type Document = string | { text?: string };

const documentText = (d: Document): string =>
  typeof d === 'string' ? d : typeof d?.text === 'string' ? d.text : JSON.stringify(d);

/**
 * POST /v1/rerank (Jina/Cohere body {model, query, documents, top_n, return_documents}): sent through the
 * channel's rerank upstream (Cohere's API for Cohere channels, Jina's shape at {base}/v1/rerank for the rest),
 * answered in Jina's shape, billed by the reported tokens (counted by us when the upstream gives none).
 */
export function rerankInbound(req: RelayRequest): InboundCall {
  const body = parseJsonBody(req.body);
  const model = bodyModel(body);
  if (!model) throw relayErrors.noModel();
  if (typeof body.query !== 'string' || !body.query) throw invalidParam('query', 'query is required');
  if (!Array.isArray(body.documents) || body.documents.length === 0)
    throw invalidParam('documents', 'documents must be a non-empty array');
  for (let i = 0; i < body.documents.length; i++) {
    const d: unknown = body.documents[i];
    if (typeof d !== 'string' && (typeof d !== 'object' || d === null || Array.isArray(d)))
      throw invalidParam(`documents[${i}]`, `documents[${i}] must be a string or an object`);
  }
  const topN = body.top_n;
  if (topN !== undefined && !(Number.isInteger(topN) && (topN as number) > 0 && (topN as number) <= MAX_TOKEN_LIMIT))
    throw invalidParam('top_n', 'top_n must be a positive integer');
  const query = body.query;
  const documents = (body.documents as Document[]).map(documentText);
  const returnDocuments = typeof body.return_documents === 'boolean' ? body.return_documents : undefined;
  const surface: Surface = {
    forward(a) {
      const up = rerankUpstreamFor(a.channel.type);
      const r: RerankRequest = { model: a.model, query, documents, topN: topN as number | undefined, returnDocuments };
      const { url, headers } = up.target(a.channel, a.key);
      return forwardBuffered(
        a,
        { origin: url.origin, path: url.pathname + url.search, headers },
        JSON.stringify(up.requestBody(r)),
        (answer) => {
          const json = parseData(answer.text);
          if (!json) return { error: 'upstream answered with invalid JSON' };
          const reranked = up.answer(json, r);
          const usage: CallUsage =
            reranked.promptTokens === undefined
              ? countedUsage(`${query}\n${documents.join('\n')}`)
              : { promptTokens: reranked.promptTokens, completionTokens: 0, reported: true };
          const out = JSON.stringify({
            ...reranked.body,
            model,
            usage: { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens },
          });
          return { out, contentType: 'application/json', usage };
        },
      );
    },
  };
  return {
    format: openAIChat,
    body,
    model,
    stream: false,
    includeUsage: false,
    maxTokens: 0,
    bytes: (req.body as Buffer).length,
    surface,
  };
}
