import type { TokenKinds, Usage } from '@tollway/shared';
import { openAITokenKinds } from '../ir/token-kinds.js';

/** Usage of one call in the provider-neutral form billing uses. */
export interface CallUsage extends Usage {
  reasoningTokens?: number;
  /** True when the upstream reported it (false: counted by us). */
  reported: boolean;
  /** How prompt tokens relate to cache tokens (OpenAI: cached inside prompt; Anthropic/IR: outside). */
  semantic?: 'openai' | 'anthropic';
  /** Billable units at a per-call model price (images × size/quality factor, audio minutes, 1K characters). */
  units?: number;
  /** Calls of tools the provider ran on its side, by tool price name (tool_price_setting.prices). */
  toolCalls?: Readonly<Record<string, number>>;
}

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  input_tokens?: number;
  output_tokens?: number;
  prompt_tokens_details?: InputDetails | null;
  input_tokens_details?: InputDetails | null;
  completion_tokens_details?: OutputDetails | null;
  output_tokens_details?: OutputDetails | null;
}

/** Cache reads and writes: Chat Completions' cache_creation_tokens, Responses' cache_write_tokens. */
interface InputDetails {
  cached_tokens?: number;
  cache_creation_tokens?: number;
  cache_write_tokens?: number;
  audio_tokens?: number;
  image_tokens?: number;
}

interface OutputDetails {
  reasoning_tokens?: number;
  audio_tokens?: number;
  image_tokens?: number;
}

const kindsField = (kinds: TokenKinds | undefined): { kinds?: TokenKinds } => (kinds ? { kinds } : {});

/** Reads an OpenAI-format usage object (chat, completions, embeddings). */
export function fromOpenAIUsage(u: OpenAIUsage | null | undefined): CallUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const prompt = u.prompt_tokens ?? u.input_tokens;
  if (typeof prompt !== 'number') return undefined;
  const input = u.prompt_tokens_details ?? u.input_tokens_details;
  return {
    promptTokens: prompt,
    completionTokens: u.completion_tokens ?? u.output_tokens ?? Math.max(0, (u.total_tokens ?? prompt) - prompt),
    cachedTokens: input?.cached_tokens ?? 0,
    cacheCreationTokens: input?.cache_creation_tokens ?? input?.cache_write_tokens ?? 0,
    reasoningTokens: (u.completion_tokens_details ?? u.output_tokens_details)?.reasoning_tokens ?? 0,
    reported: true,
    ...kindsField(openAITokenKinds(input, u.completion_tokens_details ?? u.output_tokens_details)),
  };
}

/**
 * Where the last `"usage":{…}` object of a JSON text is: the offsets of its `{` and its `}` (undefined when there is
 * none, or it is not closed). Read without parsing the whole text.
 */
export function usageObjectSpan(text: string): [open: number, close: number] | undefined {
  const at = text.lastIndexOf('"usage"');
  if (at < 0) return undefined;
  const open = text.indexOf('{', at);
  // `"usage": null` (or any value that is not an object) is no usage object.
  if (open < 0 || text.slice(at + 7, open).trim() !== ':') return undefined;
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return [open, i];
  }
  return undefined;
}

/**
 * Finds the last top-level `"usage":{…}` object in the tail of a JSON document without parsing the whole
 * body (non-streamed answers are forwarded as they arrive; only a bounded tail is kept).
 */
export function usageFromJsonTail(tail: string): CallUsage | undefined {
  const span = usageObjectSpan(tail);
  if (!span) return undefined;
  try {
    return fromOpenAIUsage(JSON.parse(tail.slice(span[0], span[1] + 1)) as OpenAIUsage);
  } catch {
    return undefined;
  }
}
