// The preset ratio files are flat JSON objects of model name to ratio; anything else is refused whole.
import { ErrorCode } from '@tollway/shared';
import { ReasonError } from '../../lib/reason-error.js';

/** Most models one file may list. */
export const MAX_MODELS = 10_000;
/** Longest model name accepted. */
export const MAX_NAME_LENGTH = 200;
/** Largest ratio accepted (a ratio of 1 is $2 per 1M tokens). */
export const MAX_RATIO = 1_000_000;

/** A preset file refused, with the rule it broke (the console words it). */
export class PresetFileError extends ReasonError {}

/**
 * Parses one ratio file: a JSON object whose keys are model names (1–200 visible characters) and whose values
 * are finite numbers from 0 to MAX_RATIO. The reason names the rule, never the file's text.
 */
export function parseRatioFile(text: string): Record<string, number> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PresetFileError('is not valid JSON', ErrorCode.PresetFileNotJson);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new PresetFileError('is not a JSON object of model names to ratios', ErrorCode.PresetFileNotObject);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_MODELS)
    throw new PresetFileError(`lists more than ${MAX_MODELS} models`, ErrorCode.PresetFileTooManyModels, {
      max: MAX_MODELS,
    });
  const out: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const [name, ratio] of entries) {
    if (name.trim() === '' || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name))
      throw new PresetFileError(
        `has a model name that is empty, longer than ${MAX_NAME_LENGTH} characters or holds control characters`,
        ErrorCode.PresetFileBadName,
        {
          max: MAX_NAME_LENGTH,
        },
      );
    if (typeof ratio !== 'number' || !Number.isFinite(ratio) || ratio < 0 || ratio > MAX_RATIO)
      throw new PresetFileError(
        `has a ratio that is not a number from 0 to ${MAX_RATIO}`,
        ErrorCode.PresetFileBadRatio,
        { max: MAX_RATIO },
      );
    out[name] = ratio;
  }
  return { ...out };
}
