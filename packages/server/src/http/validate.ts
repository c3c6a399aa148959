import type { z } from 'zod';
import { ApiError } from './errors.js';

/** Parses `input` with `schema`; on failure throws a 400 whose message names the field. */
export function parseOr400<T extends z.ZodType>(schema: T, input: unknown, where: 'body' | 'query' | 'params'): z.infer<T> {
  const res = schema.safeParse(input ?? (where === 'body' ? undefined : {}));
  if (res.success) return res.data;
  const parts = res.error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : where;
    const msg = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    return `"${field}" ${msg}`;
  });
  throw new ApiError(`invalid ${where}: ${parts.join('; ')}`, 400);
}
