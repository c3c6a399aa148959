import type { z } from 'zod';
import { ErrorCode } from '@tollway/shared';
import { coded } from '../lib/errors.js';
import { inputRefusal } from './input-codes.js';

/** True when nothing was sent at `path` (a present value of the wrong type gets the schema's own message). */
function absent(input: unknown, path: readonly PropertyKey[]): boolean {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return true;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v === undefined;
}

/**
 * Parses `input` with `schema`; on failure throws a 400 whose message names the fields, coded by the first:
 * field_required {field} when it was not sent, else the code of the rule it broke (see inputRefusal).
 */
export function parseOr400<T extends z.ZodType>(
  schema: T,
  input: unknown,
  where: 'body' | 'query' | 'params',
): z.infer<T> {
  const res = schema.safeParse(input ?? (where === 'body' ? undefined : {}));
  if (res.success) return res.data;
  const issues = res.error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : where;
    const missing = issue.code === 'invalid_type' && absent(input, issue.path);
    return { field, missing, reason: missing ? 'is required' : issue.message, refusal: inputRefusal(issue, field) };
  });
  const first = issues[0]!;
  const message = `invalid ${where}: ${issues.map((i) => `"${i.field}" ${i.reason}`).join('; ')}`;
  if (first.missing) throw coded(ErrorCode.FieldRequired, message, { field: first.field });
  throw coded(first.refusal.code, message, first.refusal.params);
}
