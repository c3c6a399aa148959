import { ChannelType, channelTypes } from '@tollway/shared';
import { aiProxyLibraryProvider } from './aiproxy/descriptor.js';
import { anthropicProvider } from './anthropic/descriptor.js';
import { awsProvider } from './aws/descriptor.js';
import { azureProvider } from './azure/descriptor.js';
import { baiduProvider } from './baidu/descriptor.js';
import { codexProvider } from './codex/descriptor.js';
import { cohereProvider } from './cohere/descriptor.js';
import { cozeProvider } from './coze/descriptor.js';
import type { ProviderDescriptor } from './descriptor.js';
import { difyProvider } from './dify/descriptor.js';
import { geminiProvider } from './gemini/descriptor.js';
import { openAIProvider } from './openai/descriptor.js';
import { palmProvider } from './palm/descriptor.js';
import { replicateProvider } from './replicate/descriptor.js';
import { tencentProvider } from './tencent/descriptor.js';
import type { UpstreamAdaptor } from './types.js';
import { vertexProvider } from './vertex/descriptor.js';
import { xunfeiProvider } from './xunfei/descriptor.js';
import { zhipuProvider } from './zhipu/descriptor.js';

/**
 * Every provider with an adaptor: one line each. This list is the only registration: the channel types served,
 * the adaptors and the format table (formats.ts) are all derived from it.
 */
export const providers = [
  openAIProvider,
  azureProvider,
  anthropicProvider,
  geminiProvider,
  cohereProvider,
  difyProvider,
  cozeProvider,
  tencentProvider,
  awsProvider,
  vertexProvider,
  baiduProvider,
  zhipuProvider,
  xunfeiProvider,
  aiProxyLibraryProvider,
  palmProvider,
  codexProvider,
  replicateProvider,
] as const;

/** The format names of one descriptor (distributes over the union of the registered descriptors). */
type FormatsOf<P> = P extends ProviderDescriptor<infer F> ? F : never;
/** The wire formats upstream adaptors speak, as the descriptors declare them (the keys of their `formats`). */
export type ProviderFormat = FormatsOf<(typeof providers)[number]>;

/**
 * Task types: served by the task relay (relay/tasks/platforms.ts), not by a chat adaptor — Midjourney, Suno and
 * the video vendors.
 */
export const taskChannelTypes: ReadonlySet<number> = new Set([
  ChannelType.Midjourney,
  ChannelType.MidjourneyPlus,
  ChannelType.SunoAPI,
  ChannelType.Kling,
  ChannelType.Jimeng,
  ChannelType.Vidu,
  ChannelType.DoubaoVideo,
  ChannelType.Sora,
]);

/** Types with a row but no adaptor yet: native protocols of their own, not yet ported. */
export const typesWithoutAdaptor: ReadonlySet<number> = new Set([
  ChannelType.KuaiziLizhen,
  ChannelType.BlockRun,
  ChannelType.BlockRunVideo,
]);

const byType = new Map<number, ProviderDescriptor<ProviderFormat>>();
for (const p of providers as readonly ProviderDescriptor<ProviderFormat>[]) {
  for (const type of p.types) {
    const other = byType.get(type);
    if (other) throw new Error(`channel type ${type} is claimed by providers ${other.name} and ${p.name}`);
    byType.set(type, p);
  }
}

/** The descriptor serving a channel type; undefined for unknown types and types without an adaptor. */
export const descriptorFor = (type: number): ProviderDescriptor<ProviderFormat> | undefined => byType.get(type);

type AdaptorChoice = UpstreamAdaptor<ProviderFormat> | ((model: string) => UpstreamAdaptor<ProviderFormat>);
/** Adaptor (or choice by model) by type, for the per-attempt lookup. */
const adaptors = new Map<number, AdaptorChoice>([...byType].map(([type, p]) => [type, p.adaptor]));

/** The adaptor for a call on a channel type; undefined when the type has no adaptor yet. One map lookup per attempt. */
export function adaptorFor(type: number, model = ''): UpstreamAdaptor<ProviderFormat> | undefined {
  const a = adaptors.get(type);
  return typeof a === 'function' ? a(model) : a;
}

/**
 * Every row type is served by a descriptor, or is a task type, or is listed in typesWithoutAdaptor: exactly one
 * (checked at start-up and in tests).
 */
for (const t of channelTypes) {
  if (Number(byType.has(t.id)) + Number(taskChannelTypes.has(t.id)) + Number(typesWithoutAdaptor.has(t.id)) !== 1)
    throw new Error(
      `channel type ${t.id} must have exactly one of a provider, a place in taskChannelTypes or in typesWithoutAdaptor`,
    );
}
