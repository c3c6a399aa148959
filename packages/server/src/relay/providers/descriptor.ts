import type { DetailLog, UpstreamQuery } from '../../core/providers.js';
import type { UpstreamFormat } from '../ir/types.js';
import type { RerankUpstream } from './jina/rerank.js';
import type { UpstreamAdaptor } from './types.js';

/**
 * Everything Tollway knows of one provider, declared in its folder (`<provider>/descriptor.ts`) and listed once
 * in registry.ts. Label, default base URL and key hint of each type live in its row of shared's channel-types.ts
 * (adaptors read the base URL with baseUrlOf: the channel's, else the row's).
 */
export interface ProviderDescriptor<F extends string = string> {
  /** Short name (logs, tests). */
  name: string;
  /** The channel types it serves; a type belongs to one descriptor. */
  types: readonly number[];
  /**
   * The wire formats its adaptors speak, by name, with their converters: the format table (formats.ts) is made
   * of these. A format several providers speak (Anthropic Messages: anthropic, aws, vertex) is the same converter
   * in each, imported from the folder that holds it.
   */
  formats: Readonly<Record<F, UpstreamFormat>>;
  /** The adaptor of a call: one for every model, or a choice by the (mapped) model name. */
  adaptor: UpstreamAdaptor<NoInfer<F>> | ((model: string) => UpstreamAdaptor<NoInfer<F>>);
  /** "Fetch models"; without it the OpenAI-style `GET {base}/v1/models` with a Bearer key. */
  listModels?(q: UpstreamQuery, log?: DetailLog): Promise<string[]>;
  /** Balance queries by channel type, where the vendor has a billing API. */
  balances?: Readonly<Record<number, (q: UpstreamQuery) => Promise<number>>>;
  /** Key check when a channel is saved (throws a readable Error); without it the row's key format is checked. */
  checkKey?(key: string): void;
  /** Keys are one JSON document each (may span lines; a batch is a JSON array; no multi-key mode). */
  jsonKeys?: boolean;
  /** Check of the channel's `other` field when saved (throws a readable Error). */
  checkOther?(other: string): void;
  /** The rerank upstream of its types (default: Jina's shape at the vendor's OpenAI-compatible prefix). */
  rerank?: RerankUpstream;
}

/**
 * Declares a descriptor with its format names kept as literals (the registry's format union is made of them);
 * an adaptor speaking a format its descriptor does not list is a type error.
 */
export const defineProvider = <const F extends string>(d: ProviderDescriptor<F>): ProviderDescriptor<F> => d;
