/** Endpoints of the OpenAI wire format that Tollway relays. */
export type OpenAIEndpoint = 'chat' | 'completions' | 'embeddings' | 'moderations';

export const openAIPaths: Record<OpenAIEndpoint, string> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  embeddings: '/v1/embeddings',
  moderations: '/v1/moderations',
};

/** Channel settings applied to an outgoing body, declaratively. */
export interface BodyRewrite {
  /** Upstream model name after mapping. */
  model: string;
  /** Ask the upstream for a usage chunk at the end of a stream. */
  forceStreamUsage: boolean;
  /** Prepended as a system message when non-empty (chat only). */
  systemPrompt: string;
  /** Top-level keys set (or removed when null) on the body. */
  paramOverride: Record<string, unknown>;
}

type Body = Record<string, unknown> & { messages?: { role: string; content: unknown }[]; stream_options?: Record<string, unknown> };

/** Rewrites a parsed request body for the upstream; returns the JSON text to send. */
export function rewriteOpenAIBody(body: Body, r: BodyRewrite, endpoint: OpenAIEndpoint): string {
  const out: Body = { ...body, model: r.model };
  if (r.forceStreamUsage && out.stream === true && (endpoint === 'chat' || endpoint === 'completions')) {
    out.stream_options = Object.assign({}, out.stream_options, { include_usage: true });
  }
  if (r.systemPrompt && endpoint === 'chat' && Array.isArray(out.messages)) {
    out.messages = [{ role: 'system', content: r.systemPrompt }, ...out.messages];
  }
  for (const [k, v] of Object.entries(r.paramOverride)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return JSON.stringify(out);
}
