import { ChannelType, channelTypeById } from '@tollway/shared';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { familyOf } from '../channels/known-models.js';

/** A model vendor as new-api's console shows it (icon: a @lobehub/icons name). */
export interface Vendor {
  id: number;
  name: string;
  icon: string;
}

/** Vendors of the model families Tollway knows by name; ids are fixed. */
const familyVendors: Record<string, Vendor> = {
  openai: { id: 1, name: 'OpenAI', icon: 'OpenAI' },
  anthropic: { id: 2, name: 'Anthropic', icon: 'Claude.Color' },
  google: { id: 3, name: 'Google', icon: 'Gemini.Color' },
  deepseek: { id: 4, name: 'DeepSeek', icon: 'DeepSeek.Color' },
  xai: { id: 5, name: 'xAI', icon: 'XAI' },
  mistral: { id: 6, name: 'Mistral', icon: 'Mistral.Color' },
  moonshot: { id: 7, name: 'Moonshot', icon: 'Moonshot' },
};
/** A model of no known family belongs to the type of its first channel: vendor id = this + the type id. */
const CHANNEL_VENDOR_ID_BASE = 1000;
const CHANNEL_STATUS_ENABLED = 1;

/** The model's vendor: its family's, else its first channel's type, else none. */
export function vendorOf(model: string, channels: readonly CachedChannel[]): Vendor | undefined {
  const family = familyOf(model);
  if (family && familyVendors[family]) return familyVendors[family];
  const first = [...channels].sort((a, b) => a.id - b.id)[0];
  if (!first) return undefined;
  return {
    id: CHANNEL_VENDOR_ID_BASE + first.type,
    name: channelTypeById.get(first.type)?.label ?? `Type ${first.type}`,
    icon: '',
  };
}

/** new-api's endpoint types with the path and method a client calls. */
export const endpointPaths: Record<string, { path: string; method: string }> = {
  openai: { path: '/v1/chat/completions', method: 'POST' },
  'openai-response': { path: '/v1/responses', method: 'POST' },
  anthropic: { path: '/v1/messages', method: 'POST' },
  gemini: { path: '/v1beta/models/{model}:generateContent', method: 'POST' },
  'jina-rerank': { path: '/v1/rerank', method: 'POST' },
  'image-generation': { path: '/v1/images/generations', method: 'POST' },
  embeddings: { path: '/v1/embeddings', method: 'POST' },
  'openai-video': { path: '/v1/videos', method: 'POST' },
};

const TEXT_ENDPOINTS = ['openai', 'openai-response', 'anthropic', 'gemini'];
const taskTypes = new Set<number>([ChannelType.Midjourney, ChannelType.MidjourneyPlus, ChannelType.SunoAPI]);
const videoTypes = new Set<number>([
  ChannelType.Kling,
  ChannelType.Jimeng,
  ChannelType.Vidu,
  ChannelType.DoubaoVideo,
  ChannelType.Sora,
]);
/** Types that serve image generation only (Replicate's models are `owner/name`, not named like images). */
const imageTypes = new Set<number>([ChannelType.Replicate]);
const EMBEDDING = /embed/i;
const RERANK = /rerank/i;
const IMAGE = /^(dall-e|gpt-image|imagen|flux|stable-diffusion|sd-)/i;
const VIDEO = /^(sora|kling|veo|vidu|jimeng)/i;

/**
 * The endpoint types a model is called through: one for embedding, rerank, image and video models; none for
 * Midjourney and Suno actions (their own routes); for text models every chat format (the gateway converts between
 * them), the channel's own format first.
 */
export function endpointTypesOf(model: string, channels: readonly CachedChannel[]): string[] {
  if (channels.length > 0 && channels.every((c) => taskTypes.has(c.type))) return [];
  if (EMBEDDING.test(model)) return ['embeddings'];
  if (RERANK.test(model)) return ['jina-rerank'];
  if (IMAGE.test(model) || (channels.length > 0 && channels.every((c) => imageTypes.has(c.type))))
    return ['image-generation'];
  if (VIDEO.test(model) || (channels.length > 0 && channels.every((c) => videoTypes.has(c.type))))
    return ['openai-video'];
  const format = channels[0] ? channelTypeById.get(channels[0].type)?.format : undefined;
  const native = format === 'anthropic' || format === 'gemini' ? format : 'openai';
  return [native, ...TEXT_ENDPOINTS.filter((e) => e !== native)];
}

/** Model → the channels listing it (every channel, or only enabled ones). */
export function channelsByModel(all: readonly CachedChannel[], enabledOnly: boolean): Map<string, CachedChannel[]> {
  const out = new Map<string, CachedChannel[]>();
  for (const ch of all) {
    if (enabledOnly && ch.status !== CHANNEL_STATUS_ENABLED) continue;
    for (const m of ch.models) {
      const list = out.get(m);
      if (list) list.push(ch);
      else out.set(m, [ch]);
    }
  }
  return out;
}

export const isEnabledChannel = (ch: CachedChannel): boolean => ch.status === CHANNEL_STATUS_ENABLED;
