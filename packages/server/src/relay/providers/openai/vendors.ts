import { ChannelType } from '@tollway/shared';

/**
 * OpenAI-compatible vendors as data: where each serves the OpenAI endpoints (the prefix replacing `/v1` in
 * `/v1/chat/completions`, `/v1/embeddings`, …) and how its key reads. Everything else — body, Bearer auth,
 * stream and usage handling — is the OpenAI adaptor's. Paths from each vendor's public API reference.
 */
export interface CompatibleVendor {
  /** Replaces the leading `/v1` of the OpenAI path; `{account}` is filled from the channel (see `account`). */
  prefix: string;
  /**
   * Vendors whose URL names an account (Cloudflare): taken from the channel's `other` field, or from a key
   * written `account|token` (the token part is then the Bearer key).
   */
  account?: boolean;
}

export const compatibleVendors: Readonly<Record<number, CompatibleVendor>> = {
  /** Ollama: `/v1/chat/completions`, `/v1/embeddings` (no key needed; a Bearer key is ignored). */
  [ChannelType.Ollama]: { prefix: '/v1' },
  /** Ali DashScope compatible mode. */
  [ChannelType.Ali]: { prefix: '/compatible-mode/v1' },
  /** Zhipu BigModel v4. */
  [ChannelType.ZhipuV4]: { prefix: '/api/paas/v4' },
  /** Jina: `/v1/embeddings` (rerank is served by the rerank upstreams). */
  [ChannelType.Jina]: { prefix: '/v1' },
  /** Cloudflare Workers AI OpenAI-compatible endpoints. */
  [ChannelType.Cloudflare]: { prefix: '/client/v4/accounts/{account}/ai/v1', account: true },
  /** Volcengine Ark. */
  [ChannelType.VolcEngine]: { prefix: '/api/v3' },
  /** Baidu Qianfan v2. */
  [ChannelType.BaiduV2]: { prefix: '/v2' },
};

/** The upstream path and Bearer key for an OpenAI path on a channel (type, `other` field) of a compatible vendor. */
export function compatibleTarget(
  channel: { type: number; other: string },
  key: string,
  openaiPath: string,
): { path: string; key: string } {
  const vendor = compatibleVendors[channel.type];
  if (!vendor) return { path: openaiPath, key };
  let prefix = vendor.prefix;
  let bearer = key;
  if (vendor.account) {
    const bar = key.indexOf('|');
    const account = channel.other.trim() || (bar > 0 ? key.slice(0, bar) : '');
    if (bar > 0) bearer = key.slice(bar + 1);
    prefix = prefix.replace('{account}', encodeURIComponent(account));
  }
  return { path: prefix + openaiPath.replace(/^\/v1/, ''), key: bearer };
}
