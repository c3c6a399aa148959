import { ErrorCode, type ErrorParams } from '@tollway/shared';
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;
export interface InputRefusal {
  code: ErrorCode;
  params: ErrorParams;
}

const SIZED_NUMBER = new Set(['number', 'bigint']);
const SIZED_LIST = new Set(['array', 'set']);

/** A length or size limit: strings count characters, numbers compare values, lists count items. */
function limitCode(issue: Issue & { origin?: string; inclusive?: boolean }, small: boolean): ErrorCode | undefined {
  const origin = issue.origin ?? '';
  if (origin === 'string') return small ? ErrorCode.InputTooShort : ErrorCode.InputTooLong;
  if (SIZED_LIST.has(origin)) return small ? ErrorCode.InputTooFew : ErrorCode.InputTooMany;
  if (!SIZED_NUMBER.has(origin)) return undefined;
  if (issue.inclusive === false) return small ? ErrorCode.InputNotAbove : ErrorCode.InputNotBelow;
  return small ? ErrorCode.InputTooSmall : ErrorCode.InputTooLarge;
}

/**
 * The code of an input check's failure, from the kind of the schema's rule, so the console words it in the
 * viewer's language; a rule of the schema's own (a refinement) is invalid_input with its English reason.
 */
export function inputRefusal(issue: Issue, field: string): InputRefusal {
  const fallback = { code: ErrorCode.InvalidInput, params: { field, reason: issue.message } };
  switch (issue.code) {
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string' && min === 1) return { code: ErrorCode.FieldRequired, params: { field } };
      const code = limitCode(issue, true);
      return code ? { code, params: { field, min } } : fallback;
    }
    case 'too_big': {
      const code = limitCode(issue, false);
      return code ? { code, params: { field, max: Number(issue.maximum) } } : fallback;
    }
    case 'invalid_value':
      return { code: ErrorCode.InputNotInList, params: { field, values: issue.values.map(String).join(', ') } };
    case 'invalid_format':
      return { code: ErrorCode.InputBadFormat, params: { field } };
    case 'invalid_type':
      return { code: issue.expected === 'int' ? ErrorCode.InputNotInteger : ErrorCode.InputWrongType, params: { field } };
    default:
      return fallback;
  }
}
