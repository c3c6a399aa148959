import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor, UpstreamCall } from '../types.js';
import { serviceAccountOf, vertexTokens } from './token.js';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
const DEFAULT_REGION = 'global';

/** The region for a model: `other` as plain text, or a JSON map of model → region with an optional `default`. */
export function vertexRegion(other: string, model: string): string {
  const v = other.trim();
  if (!v.startsWith('{')) return v || DEFAULT_REGION;
  try {
    const map = JSON.parse(v) as Record<string, unknown>;
    const r = map[model] ?? map.default;
    return typeof r === 'string' && r.trim() ? r.trim() : DEFAULT_REGION;
  } catch {
    return DEFAULT_REGION;
  }
}

/** Claude's Vertex model names put the date after `@` (claude-3-5-sonnet-20241022 → claude-3-5-sonnet-v2@20241022). */
export function vertexClaudeModel(model: string): string {
  if (model.includes('@')) return model;
  if (model === 'claude-3-5-sonnet-20241022') return 'claude-3-5-sonnet-v2@20241022';
  const m = /^(.*)-(\d{8})$/.exec(model);
  return m ? `${m[1]}@${m[2]}` : model;
}

function projectOf(key: string): string {
  try {
    return serviceAccountOf(key).projectId;
  } catch {
    // A bad key is reported by the token step.
    return '';
  }
}

/** `{base}/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}` (`@` kept, as Vertex writes Claude versions). */
function vertexUrl(call: UpstreamCall, publisher: string, model: string, method: string): URL {
  const region = vertexRegion(call.channel.other, call.model);
  const host =
    region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
  const base = baseUrlOf(call.channel, host);
  const project = encodeURIComponent(projectOf(call.key));
  return new URL(
    `${base}/v1/projects/${project}/locations/${encodeURIComponent(region)}/publishers/${publisher}/models/${encodeURIComponent(model).replace(/%40/g, '@')}:${method}`,
  );
}

async function withToken(key: string, headers: Record<string, string>): Promise<Record<string, string>> {
  const { token } = await vertexTokens.token(key);
  return { ...headers, authorization: `Bearer ${token}` };
}

/**
 * Google Vertex AI (type 41), Gemini models: generateContent / streamGenerateContent?alt=sse under the
 * project and region, authorised with the service account's OAuth token.
 */
export const vertexGeminiAdaptor: UpstreamAdaptor<'gemini'> = {
  format: 'gemini',
  target(call) {
    const url = vertexUrl(call, 'google', call.model, call.stream ? 'streamGenerateContent' : 'generateContent');
    if (call.stream) url.searchParams.set('alt', 'sse');
    return { url, headers: { 'content-type': 'application/json' } };
  },
  async prepare(call, { url, headers, body }) {
    return { url, headers: await withToken(call.key, headers), body: JSON.stringify(body) };
  },
};

/**
 * Vertex AI, Claude models: rawPredict / streamRawPredict (SSE) with the Anthropic Messages body minus `model`
 * and with `anthropic_version: vertex-2023-10-16`.
 */
export const vertexClaudeAdaptor: UpstreamAdaptor<'anthropic'> = {
  format: 'anthropic',
  target(call) {
    return {
      url: vertexUrl(call, 'anthropic', vertexClaudeModel(call.model), call.stream ? 'streamRawPredict' : 'rawPredict'),
      headers: { 'content-type': 'application/json' },
    };
  },
  async prepare(call, { url, headers, body }) {
    const shaped: Record<string, unknown> = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body };
    delete shaped.model;
    return { url, headers: await withToken(call.key, headers), body: JSON.stringify(shaped) };
  },
};

/** Claude models go to Anthropic's publisher endpoint, everything else to Google's. */
export const vertexAdaptorFor = (model: string): UpstreamAdaptor<'gemini' | 'anthropic'> =>
  model.startsWith('claude') ? vertexClaudeAdaptor : vertexGeminiAdaptor;
