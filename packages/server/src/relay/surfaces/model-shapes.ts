import { RelayError } from '../pipeline/errors.js';

/** A model served to a token: its id and when the gateway started serving it (seconds). */
export interface ServedModel {
  id: string;
  created: number;
}

/** The protocol a model-info call answers in: Anthropic's with anthropic-version, Gemini's with a Gemini-style key, else OpenAI's. */
export type ModelInfoProtocol = 'openai' | 'anthropic' | 'gemini';

export function modelInfoProtocol(req: { headers: Record<string, unknown>; query: unknown }): ModelInfoProtocol {
  if (req.headers['anthropic-version'] !== undefined) return 'anthropic';
  const query = (req.query ?? {}) as { key?: unknown };
  if (req.headers['x-goog-api-key'] !== undefined || query.key !== undefined) return 'gemini';
  return 'openai';
}

export const openAIModel = (m: ServedModel) => ({ id: m.id, object: 'model', created: m.created, owned_by: 'tollway' });

export const anthropicModel = (m: ServedModel) => ({
  type: 'model',
  id: m.id,
  display_name: m.id,
  created_at: new Date(m.created * 1000).toISOString(),
});

/** Anthropic's list page; every model fits on one page. */
export function anthropicModelList(models: ServedModel[]) {
  const data = models.map(anthropicModel);
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** Embedding models are named so by every vendor (text-embedding-004, gemini-embedding-001, text-embedding-3-small). */
const EMBEDDING_NAME = /embed/i;
const GEMINI_GENERATE_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];
const GEMINI_EMBED_METHODS = ['embedContent', 'batchEmbedContents', 'countTokens'];
const GEMINI_MODEL_VERSION = '001';

/** A model in Gemini's shape; the methods are those the gateway answers for it. */
export const geminiModel = (id: string) => ({
  name: `models/${id}`,
  baseModelId: id,
  version: GEMINI_MODEL_VERSION,
  displayName: id,
  supportedGenerationMethods: EMBEDDING_NAME.test(id) ? GEMINI_EMBED_METHODS : GEMINI_GENERATE_METHODS,
});

/** Gemini's largest page of models; a bigger pageSize is lowered to it, as Google does. */
const GEMINI_MAX_PAGE_SIZE = 1000;

const badPage = (what: string) =>
  new RelayError(400, `invalid ${what}`, 'invalid_request_error', 'invalid_value', what);

/** The offset a pageToken of ours stands for (the token is the offset, base64url). */
function pageOffset(token: unknown, total: number): number {
  if (token === undefined || token === '') return 0;
  if (typeof token !== 'string') throw badPage('pageToken');
  const offset = Number(Buffer.from(token, 'base64url').toString('utf8'));
  if (!Number.isInteger(offset) || offset < 0 || offset > total) throw badPage('pageToken');
  return offset;
}

/**
 * Gemini's model list, a page of `pageSize` models from `pageToken` with `nextPageToken` when more follow;
 * without pageSize every model is on one page.
 */
export function geminiModelPage(ids: string[], query: { pageSize?: unknown; pageToken?: unknown }) {
  const from = pageOffset(query.pageToken, ids.length);
  let size = ids.length - from;
  if (query.pageSize !== undefined && query.pageSize !== '') {
    const asked = Number(query.pageSize);
    if (!Number.isInteger(asked) || asked < 0) throw badPage('pageSize');
    if (asked > 0) size = Math.min(asked, GEMINI_MAX_PAGE_SIZE);
  }
  const to = Math.min(ids.length, from + size);
  const page: { models: ReturnType<typeof geminiModel>[]; nextPageToken?: string } = {
    models: ids.slice(from, to).map(geminiModel),
  };
  if (to < ids.length) page.nextPageToken = Buffer.from(String(to)).toString('base64url');
  return page;
}

/** A model the token cannot see, as the vendor says it (Gemini's wording for Gemini callers). */
export function modelNotFound(model: string, protocol: ModelInfoProtocol): RelayError {
  const message =
    protocol === 'gemini'
      ? `models/${model} is not found for API version v1beta, or is not supported`
      : `The model '${model}' does not exist`;
  return new RelayError(404, message, 'invalid_request_error', 'model_not_found');
}
