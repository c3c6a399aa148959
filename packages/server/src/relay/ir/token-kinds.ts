import type { TokenKinds } from '@tollway/shared';

/**
 * Token kinds as each vendor reports them inside its counts (expressions price them on their own: cc1h, img, ai,
 * img_o, ao). Only positive integers count; none reported is undefined.
 */
const count = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0);

function kindsOf(k: TokenKinds): TokenKinds | undefined {
  const out: TokenKinds = {};
  for (const [key, v] of Object.entries(k) as [keyof TokenKinds, number | undefined][]) if (v) out[key] = v;
  return Object.keys(out).length ? out : undefined;
}

type Details = { audio_tokens?: unknown; image_tokens?: unknown } | null | undefined;

/** OpenAI (chat and Responses): prompt/input and completion/output details' audio_tokens and image_tokens. */
export function openAITokenKinds(input: Details, output: Details): TokenKinds | undefined {
  const audioIn = count(input?.audio_tokens);
  const imageIn = count(input?.image_tokens);
  const audioOut = count(output?.audio_tokens);
  const imageOut = count(output?.image_tokens);
  // Most answers report none: nothing built or scanned (every OpenAI usage read comes here).
  if (!(audioIn || imageIn || audioOut || imageOut)) return undefined;
  return kindsOf({ audioIn, imageIn, audioOut, imageOut });
}

/** Anthropic: the 1-hour part of the cache writes (usage.cache_creation.ephemeral_1h_input_tokens). */
export function anthropicTokenKinds(cacheCreation: { ephemeral_1h_input_tokens?: unknown } | null | undefined) {
  return kindsOf({ cacheWrite1h: count(cacheCreation?.ephemeral_1h_input_tokens) });
}

type Modality = { modality?: unknown; tokenCount?: unknown };

const byModality = (list: unknown, modality: string): number =>
  Array.isArray(list)
    ? list.reduce((sum: number, m: Modality) => sum + (m?.modality === modality ? count(m.tokenCount) : 0), 0)
    : 0;

/** Gemini: promptTokensDetails and candidatesTokensDetails by modality (IMAGE, AUDIO). */
export function geminiTokenKinds(prompt: unknown, candidates: unknown): TokenKinds | undefined {
  return kindsOf({
    imageIn: byModality(prompt, 'IMAGE'),
    audioIn: byModality(prompt, 'AUDIO'),
    imageOut: byModality(candidates, 'IMAGE'),
    audioOut: byModality(candidates, 'AUDIO'),
  });
}
