import { usesMaxCompletionTokens } from './openai/chat.js';

type Json = Record<string, unknown>;

/** `cap`, or the body's own limit when that is lower (and positive). */
const lower = (v: unknown, cap: number): number => (typeof v === 'number' && v > 0 && v < cap ? v : cap);

/**
 * Lowers a request body's output cap to `cap` tokens per choice, in the field the wire format `format` reads:
 * OpenAI Chat `max_completion_tokens` (o-series and gpt-5 models, or when the body uses it) or `max_tokens`,
 * Responses `max_output_tokens`, Anthropic `max_tokens` (left alone when a thinking budget would not fit below
 * it: the relay's meter holds the answer then), Gemini `generationConfig.maxOutputTokens`. The body is changed.
 */
export function capOutput(format: string, body: Json, cap: number, model: string): void {
  switch (format) {
    case 'openai': {
      const completion = 'max_completion_tokens' in body || (!('max_tokens' in body) && usesMaxCompletionTokens(model));
      if (completion) body.max_completion_tokens = lower(body.max_completion_tokens, cap);
      if (!completion || 'max_tokens' in body) body.max_tokens = lower(body.max_tokens, cap);
      return;
    }
    case 'responses':
      body.max_output_tokens = lower(body.max_output_tokens, cap);
      return;
    case 'anthropic': {
      const budget = (body.thinking as { budget_tokens?: unknown } | undefined)?.budget_tokens;
      if (typeof budget === 'number' && budget >= cap) return;
      body.max_tokens = lower(body.max_tokens, cap);
      return;
    }
    case 'gemini': {
      const g: Json = { ...((body.generationConfig as Json | undefined) ?? {}) };
      g.maxOutputTokens = lower(g.maxOutputTokens, cap);
      body.generationConfig = g;
      return;
    }
    default:
  }
}
