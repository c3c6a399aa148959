import type { z } from 'zod';
import { ApiError } from './errors.js';

/** True when nothing was sent at `path` (a present value of the wrong type gets the schema's own message). */
function absent(input: unknown, path: readonly PropertyKey[]): boolean {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return true;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v === undefined;
}

/** Parses `input` with `schema`; on failure throws a 400 whose message names the field. */
export function parseOr400<T extends z.ZodType>(schema: T, input: unknown, where: 'body' | 'query' | 'params'): z.infer<T> {
  const res = schema.safeParse(input ?? (where === 'body' ? undefined : {}));
  if (res.success) return res.data;
  const parts = res.error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : where;
    const msg = issue.code === 'invalid_type' && absent(input, issue.path) ? 'is required' : issue.message;
    return `"${field}" ${msg}`;
  });
  throw new ApiError(`invalid ${where}: ${parts.join('; ')}`, 400);
}
