import type { z } from 'zod';
import { ErrorCode, isErrorCode, type ErrorParams } from './error-codes.js';

type Issue = z.core.$ZodIssue;

/** An input check's failure as the console words it: a stable code and the values its text needs. */
export interface InputRefusal {
  code: ErrorCode;
  params: ErrorParams;
}

/** What a coded rule leaves in its zod issue's `params`: its code and the values its text needs besides the field. */
interface RuleParams {
  code: ErrorCode;
  values?: ErrorParams;
}

/**
 * The options of a schema's own rule (a refinement, or an issue a refinement or transform adds) that fails with a
 * stable code: `.refine(check, inputRule(code, message))`, `ctx.addIssue({ code: 'custom', ...inputRule(…) })`.
 * The English message stays what API scripts read and the console's fallback; zod keeps `params` on the issue,
 * so the input check answers the code and values and the console writes its own text (no English inside it).
 * `values` are the text's placeholders besides {field}, which the check fills in from the issue's path (a
 * `field` among them gives way to it).
 */
export function inputRule(
  code: ErrorCode,
  message: string,
  values?: ErrorParams,
  path?: PropertyKey[],
): { message: string; params: RuleParams; path?: PropertyKey[] } {
  const params: RuleParams = values ? { code, values } : { code };
  return path ? { message, params, path } : { message, params };
}

/** The code of a rule's issue (undefined for a refinement without one). */
function ruleOf(params: Record<string, unknown> | undefined): RuleParams | undefined {
  if (!params || !isErrorCode(params.code)) return undefined;
  const values = params.values;
  return { code: params.code, values: values && typeof values === 'object' ? (values as ErrorParams) : undefined };
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
 * The code of an input check's failure, from the kind of the schema's rule or the code a rule of the schema's
 * own carries (inputRule), so the console words it in the viewer's language. Anything else is invalid_input,
 * whose English reason only the English text shows.
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
      return {
        code: issue.expected === 'int' ? ErrorCode.InputNotInteger : ErrorCode.InputWrongType,
        params: { field },
      };
    case 'invalid_union': {
      // A discriminated union names the values its discriminator takes; any other union failed every form it accepts.
      const options = (issue as { options?: unknown }).options;
      if (Array.isArray(options))
        return { code: ErrorCode.InputNotInList, params: { field, values: options.map(String).join(', ') } };
      return { code: ErrorCode.InputWrongType, params: { field } };
    }
    case 'unrecognized_keys':
      return { code: ErrorCode.InputUnknownKeys, params: { field, keys: issue.keys.join(', ') } };
    case 'invalid_key':
      return { code: ErrorCode.InputBadKey, params: { field } };
    case 'custom': {
      const rule = ruleOf(issue.params);
      return rule ? { code: rule.code, params: { ...rule.values, field } } : fallback;
    }
    default:
      return fallback;
  }
}
