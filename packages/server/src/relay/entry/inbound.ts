import type { RelayRequest } from './request.js';
import { RelayError, relayErrors } from '../pipeline/errors.js';
import { geminiGenerate, geminiModelFromPath } from '../providers/gemini/convert.js';
import { openAIChat } from '../providers/openai/chat.js';
import type { ClientFormat } from '../ir/types.js';
import type { OpenAIEndpoint } from '../providers/openai/request.js';
import type { Body, InboundCall } from '../pipeline/types.js';
import { bodyModel, checkDepth, checkGemini, checkOpenAI, invalidParam, MAX_MODEL_NAME } from './validate.js';

/** The JSON object of a relay body, nested no deeper than MAX_BODY_DEPTH. */
export function parseJsonBody(raw: unknown): Body {
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw relayErrors.badBody('a JSON object is required');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw relayErrors.badBody(`malformed JSON (${(err as Error).message})`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw relayErrors.badBody('a JSON object is required');
  checkDepth(body as Body);
  return body as Body;
}

const modelOf = (body: Body): string => {
  const model = bodyModel(body);
  if (!model) throw relayErrors.noModel();
  return model;
};

/** OpenRouter's switch `"usage": {"include": true}`: the answer's usage carries its cost (billing/receipt.ts). */
const asksUsageCost = (body: Body): boolean => (body.usage as { include?: unknown } | undefined)?.include === true;

/** OpenAI Chat Completions and the other OpenAI endpoints. */
export function openAIInbound(endpoint: OpenAIEndpoint) {
  return (req: RelayRequest): InboundCall => {
    const body = parseJsonBody(req.body);
    const model = modelOf(body);
    const maxTokens = checkOpenAI(body, endpoint);
    const usageCost = asksUsageCost(body);
    return {
      format: openAIChat,
      openaiEndpoint: endpoint,
      body,
      model,
      stream: body.stream === true,
      // A client that asked for the cost in its usage gets the usage chunk that carries it.
      includeUsage:
        usageCost || (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true,
      usageCost,
      maxTokens,
      bytes: (req.body as Buffer).length,
      raw: req.body as Buffer,
    };
  };
}

/** Clients whose model and stream flag are in the body (Anthropic Messages, OpenAI Responses); `check` validates and returns the token limit. */
export function bodyModelInbound(format: ClientFormat, check: (body: Body) => number) {
  return (req: RelayRequest): InboundCall => {
    const body = parseJsonBody(req.body);
    const model = modelOf(body);
    const maxTokens = check(body);
    return {
      format,
      body,
      model,
      stream: body.stream === true,
      includeUsage: false,
      // The Responses API's usage is in every answer; asked, it carries the cost too.
      usageCost: format.name === 'responses' && asksUsageCost(body),
      maxTokens,
      bytes: (req.body as Buffer).length,
    };
  };
}

/** Gemini: the model and the method (generateContent / streamGenerateContent) are in the URL. */
export function geminiInbound(req: RelayRequest): InboundCall {
  const parsed = geminiModelFromPath(req.url);
  if (!parsed)
    throw relayErrors.badBody('the path must be /v1beta/models/{model}:generateContent or :streamGenerateContent');
  // Any other method of a model is a path this API does not have, as Google answers it.
  if (parsed.method !== 'generateContent' && parsed.method !== 'streamGenerateContent') {
    throw new RelayError(
      404,
      `models/${parsed.model}:${parsed.method} is not a method this gateway serves`,
      'invalid_request_error',
      'not_found',
    );
  }
  if (parsed.model.length > MAX_MODEL_NAME)
    throw invalidParam('model', `model must be at most ${MAX_MODEL_NAME} characters`);
  const body = parseJsonBody(req.body);
  const maxTokens = checkGemini(body);
  return {
    format: geminiGenerate,
    body,
    model: parsed.model,
    stream: parsed.method === 'streamGenerateContent',
    includeUsage: false,
    maxTokens,
    bytes: (req.body as Buffer).length,
  };
}
