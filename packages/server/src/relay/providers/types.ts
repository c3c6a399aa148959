import type { CachedChannel } from '../../modules/channels/cache.js';
import type { OptionsService } from '../../modules/options/service.js';

/** Wire formats an upstream can speak. */
export type UpstreamFormat = 'openai' | 'anthropic' | 'gemini' | 'cohere' | 'dify' | 'coze';

export interface UpstreamCall {
  channel: CachedChannel;
  key: string;
  /** Upstream model after mapping. */
  model: string;
  stream: boolean;
  /** OpenAI endpoint path for OpenAI-format upstreams ('/v1/chat/completions', '/v1/embeddings', …). */
  openaiPath: string;
  options: OptionsService;
}

/** Where and how to send a call to one kind of upstream: URL and auth headers; the body comes from the format. */
export interface UpstreamAdaptor {
  format: UpstreamFormat;
  target(call: UpstreamCall): { url: URL; headers: Record<string, string> };
}
