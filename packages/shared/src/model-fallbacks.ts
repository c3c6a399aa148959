import { z } from 'zod';

/** The most fallback models one model may list (each is tried with its own channels and retries). */
export const MAX_MODEL_FALLBACKS = 5;

/** Highest concurrency limit an option may set (calls in flight per token or per user). */
export const CONCURRENCY_LIMIT_MAX = 100_000;

/**
 * The ModelFallbacks option: model → the models a call moves to, in order, once the model's own channels are
 * exhausted on a 5xx, 429, timeout or context-length refusal: {"gpt-4o": ["gpt-4o-mini", "claude-3-5-haiku"]}.
 */
export const modelFallbacks = z.record(
  z.string().min(1, 'a model name must not be empty'),
  z
    .array(z.string().min(1, 'a fallback model name must not be empty'), {
      error: 'each model maps to a list of fallback model names',
    })
    .max(MAX_MODEL_FALLBACKS, `at most ${MAX_MODEL_FALLBACKS} fallback models per model`),
);
export type ModelFallbacks = z.infer<typeof modelFallbacks>;
