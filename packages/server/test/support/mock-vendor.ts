import http from 'node:http';
import { listenLocally } from './local-server.js';
import { answerAnthropicModels, answerCountTokens, answerMessages, anthropicError } from './mock-vendor-anthropic.js';
import {
  answerEmbed,
  answerGeminiCount,
  answerGeminiModels,
  answerGenerate,
  geminiError,
  parseGeminiPath,
} from './mock-vendor-gemini.js';
import { answerChat, answerEmbeddings, answerOpenAIModels, openaiError } from './mock-vendor-openai.js';
import { errorStatusOf, type Vendor } from './mock-vendor-plan.js';
import { answerResponses } from './mock-vendor-responses.js';

export type { Vendor } from './mock-vendor-plan.js';
export { MOCK_EMBEDDING, MOCK_INPUT_TOKENS, MOCK_OUTPUT_TOKENS, JSON_OBJECT_TEXT } from './mock-vendor-plan.js';
export { embeddingBase64 } from './mock-vendor-openai.js';
export { SAMPLE_BOOLEAN, SAMPLE_NUMBER, SAMPLE_STRING, sampleFromSchema } from './schema-sample.js';

/** One request the mock received (newest last in `requests`). */
export interface VendorRequest {
  vendor: Vendor;
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body ({} when empty). */
  body: Record<string, unknown>;
}

export interface MockVendor {
  /** http://127.0.0.1:<port>: the base_url of every channel type. */
  url: string;
  requests: VendorRequest[];
  /** The newest request (to `vendor` when given); throws when there is none. */
  lastRequest(vendor?: Vendor): VendorRequest;
  close(): Promise<void>;
}

/** Which vendor a request is for: by path, and /v1/models by the anthropic-version header. */
function vendorOf(path: string, headers: http.IncomingHttpHeaders): Vendor | undefined {
  if (/^\/v1(beta|alpha)\//.test(path) || parseGeminiPath(path)?.method) return 'gemini';
  if (path === '/v1/messages' || path === '/v1/messages/count_tokens') return 'anthropic';
  if (path === '/v1/models' || path.startsWith('/v1/models/'))
    return headers['anthropic-version'] ? 'anthropic' : 'openai';
  if (path === '/v1/chat/completions' || path === '/v1/responses' || path === '/v1/embeddings') return 'openai';
  return undefined;
}

/** The API key a vendor reads (Gemini: header or ?key=). */
function keyOf(vendor: Vendor, headers: http.IncomingHttpHeaders, query: URLSearchParams): string {
  if (vendor === 'anthropic') return String(headers['x-api-key'] ?? '');
  if (vendor === 'gemini') return String(headers['x-goog-api-key'] ?? query.get('key') ?? '');
  return String(headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}

function vendorError(vendor: Vendor, res: http.ServerResponse, status: number, message: string): void {
  if (vendor === 'anthropic') return anthropicError(res, status, message);
  if (vendor === 'gemini') return geminiError(res, status, message);
  return openaiError(res, status, message);
}

function route(r: VendorRequest, res: http.ServerResponse): void {
  const { vendor, path, method, body } = r;
  if (vendor === 'gemini') {
    const parsed = parseGeminiPath(path);
    if (method === 'GET') return answerGeminiModels(res, parsed?.model);
    if (!parsed?.method) return geminiError(res, 404, `no ${path}`);
    if (parsed.method === 'generateContent' || parsed.method === 'streamGenerateContent')
      return answerGenerate(res, parsed.model, parsed.method === 'streamGenerateContent', body);
    if (parsed.method === 'embedContent' || parsed.method === 'batchEmbedContents')
      return answerEmbed(res, parsed.model, parsed.method, body);
    if (parsed.method === 'countTokens') return answerGeminiCount(res);
    return geminiError(res, 400, `method ${parsed.method} is not supported`);
  }
  if (vendor === 'anthropic') {
    if (method === 'GET') return answerAnthropicModels(res, path);
    if (path === '/v1/messages/count_tokens') return answerCountTokens(res);
    return answerMessages(res, body);
  }
  if (method === 'GET') return answerOpenAIModels(res, path);
  if (path === '/v1/chat/completions') return answerChat(res, body);
  if (path === '/v1/responses') return answerResponses(res, body);
  return answerEmbeddings(res, body);
}

/**
 * A mock of the three vendors' APIs on one real HTTP port (OpenAI chat/responses/embeddings/models, Anthropic
 * messages/models, Gemini generate/stream/embed/count/models), answering deterministically from the request
 * (see mock-vendor-plan.ts); model `mock-error-<status>` answers that status in the vendor's error shape.
 */
export async function startMockVendor(): Promise<MockVendor> {
  const requests: VendorRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://mock');
      const path = url.pathname;
      const vendor = vendorOf(path, req.headers);
      if (!vendor) return openaiError(res, 404, `mock vendor has no ${req.method} ${path}`);
      let body: Record<string, unknown>;
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        return vendorError(vendor, res, 400, 'Invalid JSON payload received.');
      }
      const r: VendorRequest = {
        vendor,
        method: req.method ?? '',
        path,
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      requests.push(r);
      if (!keyOf(vendor, req.headers, url.searchParams)) return vendorError(vendor, res, 401, 'missing API key');
      const model = String(body.model ?? parseGeminiPath(path)?.model ?? '');
      const status = errorStatusOf(model);
      if (status !== undefined) return vendorError(vendor, res, status, `mock error ${status} for ${model}`);
      route(r, res);
    });
  });
  server.keepAliveTimeout = 60_000;
  const { url, close } = await listenLocally(server);
  return {
    url,
    requests,
    lastRequest(vendor) {
      const found = vendor ? requests.findLast((r) => r.vendor === vendor) : requests.at(-1);
      if (!found) throw new Error(`the mock vendor received no request${vendor ? ` for ${vendor}` : ''}`);
      return found;
    },
    close,
  };
}
