import type { z } from 'zod';
import type { ErrorCode, ErrorParams } from './error-codes.js';

/** A text option's failed check: the English message, and the code and values of the console's text ({key} is added). */
export interface OptionCheckFailure {
  message: string;
  code: ErrorCode;
  params?: ErrorParams;
}

/**
 * The type of one option. Values are stored and sent as text; booleans as the text `true`/`false`, JSON values
 * pretty or compact JSON text.
 */
export type OptionKind = 'bool' | 'int' | 'float' | 'string' | 'json' | 'enum';

export interface OptionDef {
  kind: OptionKind;
  default: string;
  /** Never sent back to the console (write only). */
  secret?: boolean;
  /** For json: a schema the parsed value must satisfy. */
  json?: z.ZodType;
  /** For enum: allowed values. */
  values?: readonly string[];
  min?: number;
  max?: number;
  /** For string: a check of the text; returns what is wrong, or undefined when it is valid. */
  check?: (text: string) => OptionCheckFailure | undefined;
}

export const bool = (d: boolean): OptionDef => ({ kind: 'bool', default: String(d) });
export const int = (d: number, min?: number, max?: number): OptionDef => ({
  kind: 'int',
  default: String(d),
  min,
  max,
});
export const float = (d: number, min?: number, max?: number): OptionDef => ({
  kind: 'float',
  default: String(d),
  min,
  max,
});
export const str = (d = ''): OptionDef => ({ kind: 'string', default: d });
export const secret = (): OptionDef => ({ kind: 'string', default: '', secret: true });
export const json = (d: unknown, schema: z.ZodType): OptionDef => ({
  kind: 'json',
  default: JSON.stringify(d),
  json: schema,
});
export const oneOf = (d: string, values: readonly string[]): OptionDef => ({ kind: 'enum', default: d, values });
/** A text option whose content is checked by `check`. */
export const checked = (d: string, check: (text: string) => OptionCheckFailure | undefined): OptionDef => ({
  kind: 'string',
  default: d,
  check,
});
