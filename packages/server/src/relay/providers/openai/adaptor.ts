import type { CachedChannel } from '../../../core/routing/channel-cache.js';
import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';
import { compatibleTarget } from './vendors.js';

/** Paths whose URL a channel keeps (its endpoints, times the vendor accounts its keys name); past it, kept afresh. */
const PATHS_KEPT_PER_CHANNEL = 64;

/** One channel's target URLs by path, for the base URL and type they were parsed from. */
interface ChannelUrls {
  baseUrl: string;
  type: number;
  byPath: Map<string, URL>;
}

/**
 * Target URLs parsed once per channel and path rather than on every attempt (`new URL` ≈ 5,300 instructions), held
 * by the channel object (gone with it when the channel cache reloads). Looked up by the channel, then by the path,
 * which is usually the endpoint's constant: no new string is hashed on the way (a map keyed by the whole address
 * cost ≈ 1,700 a call). One URL object serves every call to the address, so a target's URL is read-only
 * (UpstreamAdaptor.target).
 */
const channelUrls = new WeakMap<CachedChannel, ChannelUrls>();

function targetUrl(channel: CachedChannel, path: string): URL {
  let urls = channelUrls.get(channel);
  if (urls === undefined || urls.baseUrl !== channel.baseUrl || urls.type !== channel.type) {
    urls = { baseUrl: channel.baseUrl, type: channel.type, byPath: new Map() };
    channelUrls.set(channel, urls);
  }
  let url = urls.byPath.get(path);
  if (url === undefined) {
    if (urls.byPath.size >= PATHS_KEPT_PER_CHANNEL) urls.byPath.clear();
    url = new URL(baseUrlOf(channel) + path);
    urls.byPath.set(path, url);
  }
  return url;
}

/**
 * Every OpenAI-compatible vendor: base URL + the OpenAI path (moved under the vendor's prefix, see vendors.ts),
 * Bearer key, optional organization.
 */
export const openAIAdaptor: UpstreamAdaptor<'openai'> = {
  format: 'openai',
  target({ channel, key, openaiPath }) {
    const vendor = compatibleTarget(channel, key, openaiPath);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      authorization: `Bearer ${vendor.key}`,
    };
    if (channel.organization) headers['openai-organization'] = channel.organization;
    return { url: targetUrl(channel, vendor.path), headers };
  },
};
