import type { z } from 'zod';
import { ApiError } from './errors.js';

/** Parses `input` with `schema`; on failure throws a 400 whose message names the field. */
export function parseOr400<T extends z.ZodType>(schema: T, input: unknown, where: 'body' | 'query' | 'params'): z.infer<T> {
  const res = schema.safeParse(input ?? (where === 'body' ? undefined : {}));
  if (res.success) return res.data;
  const issue = res.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : where;
  const msg = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
  throw new ApiError(`invalid ${where} field "${field}": ${msg}`, 400);
}
