import { capOutput } from '../output-cap.js';
import {
  dropDisabledFields,
  hasDisabledFields,
  type ChannelCallSettings,
} from '../../../core/routing/channel-settings.js';

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
  /** The output cap per choice the call's hold affords, when the balance binds (chat and completions). */
  outputCap?: number;
  /** The channel's settings: body fields it does not allow are removed (before paramOverride). */
  callSettings?: ChannelCallSettings;
}

type Body = Record<string, unknown> & {
  messages?: { role: string; content: unknown }[];
  stream_options?: Record<string, unknown>;
};

const USAGE_KEY = Buffer.from('"stream_options":{"include_usage":true},');
const OPEN_BRACE = 0x7b;

/**
 * The client's own bytes when the rewrite would change nothing (no stringify of a body that passes through), or
 * with only the usage request added in front of its first key; undefined when the body must be rebuilt.
 */
function unchangedBytes(
  body: Body,
  raw: Buffer,
  r: BodyRewrite,
  wantsUsage: boolean,
  endpoint: OpenAIEndpoint,
): Buffer | undefined {
  if (
    body.model !== r.model ||
    'usage' in body ||
    (r.systemPrompt && endpoint === 'chat') ||
    Object.keys(r.paramOverride).length > 0 ||
    r.outputCap !== undefined ||
    (r.callSettings && hasDisabledFields(body, r.callSettings))
  )
    return undefined;
  if (!wantsUsage || body.stream_options?.include_usage === true) return raw;
  if ('stream_options' in body) return undefined;
  // The body parsed as an object with a model: its first byte that is not white space is `{`, and a key follows.
  // Copied into one new buffer (Buffer.concat of two views cost about 12,000 instructions a call more).
  const at = raw[0] === OPEN_BRACE ? 0 : raw.indexOf(OPEN_BRACE);
  const out = Buffer.allocUnsafe(raw.length + USAGE_KEY.length);
  raw.copy(out, 0, 0, at + 1);
  USAGE_KEY.copy(out, at + 1);
  raw.copy(out, at + 1 + USAGE_KEY.length, at + 1);
  return out;
}

/**
 * Rewrites a parsed request body for the upstream; returns what to send. With `raw` (the client's JSON bytes the
 * body was parsed from) an unchanged body goes out as those bytes.
 */
export function rewriteOpenAIBody(body: Body, r: BodyRewrite, endpoint: OpenAIEndpoint, raw?: Buffer): string | Buffer {
  const wantsUsage = r.forceStreamUsage && body.stream === true && (endpoint === 'chat' || endpoint === 'completions');
  const same = raw && unchangedBytes(body, raw, r, wantsUsage, endpoint);
  if (same) return same;
  const out: Body = { ...body, model: r.model };
  // Tollway's own request field (`"usage": {"include": true}`, the cost receipt): no upstream is sent it.
  delete out.usage;
  if (wantsUsage) out.stream_options = Object.assign({}, out.stream_options, { include_usage: true });
  if (r.systemPrompt && endpoint === 'chat' && Array.isArray(out.messages)) {
    out.messages = [{ role: 'system', content: r.systemPrompt }, ...out.messages];
  }
  if (r.callSettings) dropDisabledFields(out, r.callSettings);
  for (const [k, v] of Object.entries(r.paramOverride)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  if (r.outputCap !== undefined && (endpoint === 'chat' || endpoint === 'completions'))
    capOutput('openai', out, r.outputCap, r.model);
  return JSON.stringify(out);
}
