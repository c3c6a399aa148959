import { optionDefs, type OptionDef, type OptionKey } from '@tollway/shared';
import type { TFunction } from 'i18next';
import { z } from 'zod';
import { issueText } from '../../../lib/issue-text';

/** Option values as the server stores them: text. */
export type OptionMap = Partial<Record<OptionKey, string>>;
/** A value as the form holds it: booleans as booleans, numbers as numbers (null when empty), the rest as text. */
export type FormValue = string | number | boolean | null;
export type SectionValues = Record<string, FormValue>;

export const defOf = (key: OptionKey): OptionDef => optionDefs[key] as OptionDef;

/** react-hook-form reads dots as nesting, so option keys such as oidc.enabled become oidc__enabled. */
export const fieldName = (key: OptionKey): string => key.replace(/\./g, '__');
/** i18next reads dots as nesting too: label keys use underscores. */
export const labelKey = (key: OptionKey): string => key.replace(/\./g, '_');

/** Addresses whose trailing slashes are stripped before saving. */
const ADDRESS_KEYS = new Set<OptionKey>([
  'ServerAddress',
  'CustomCallbackAddress',
  'WorkerUrl',
  'PayAddress',
  'WeChatServerAddress',
]);

export const stripTrailingSlashes = (s: string): string => s.trim().replace(/\/+$/, '');

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Stored text → form value. A key the server did not send takes its default. */
export function toFormValue(key: OptionKey, text: string | undefined): FormValue {
  const def = defOf(key);
  const raw = text ?? (def.secret ? '' : def.default);
  switch (def.kind) {
    case 'bool':
      return raw === 'true';
    case 'int':
    case 'float': {
      if (raw.trim() === '') return null;
      const n = Number(raw);
      return Number.isFinite(n) ? n : null;
    }
    case 'json':
      return prettyJson(raw);
    default:
      return raw;
  }
}

/** Form value → the text sent with PUT /api/option/ (booleans as 'true'/'false', numbers as text, JSON as text). */
export function toOptionText(key: OptionKey, value: FormValue | undefined): string {
  const def = defOf(key);
  if (def.kind === 'bool') return value === true ? 'true' : 'false';
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = String(value);
  if (ADDRESS_KEYS.has(key)) return stripTrailingSlashes(text);
  if (def.kind === 'json') return text.trim();
  return text;
}

export function formValuesFor(keys: readonly OptionKey[], options: OptionMap): SectionValues {
  const out: SectionValues = {};
  for (const k of keys) out[fieldName(k)] = toFormValue(k, options[k]);
  return out;
}

/** Checks JSON text: parse error → "not a valid JSON string"; shape error → the schema's first issue, in the viewer's language. */
export function jsonIssue(key: OptionKey, text: string, t: TFunction): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return t('validation.json');
  }
  const schema = defOf(key).json;
  if (!schema) return null;
  const issue = schema.safeParse(parsed).error?.issues[0];
  return issue
    ? t('validation.jsonShape', { detail: issueText(issue, [key, ...issue.path.map(String)].join('.')) })
    : null;
}

/** The zod rule of one option, derived from its entry in optionDefs (kind, min, max, enum values, JSON schema). */
export function optionSchema(key: OptionKey, t: TFunction): z.ZodType {
  const def = defOf(key);
  switch (def.kind) {
    case 'bool':
      return z.boolean();
    case 'int':
    case 'float': {
      let s = z.number(t('validation.number'));
      if (def.kind === 'int') s = s.int(t('validation.integer'));
      if (def.min !== undefined) s = s.min(def.min, t('validation.min', { min: def.min }));
      if (def.max !== undefined) s = s.max(def.max, t('validation.max', { max: def.max }));
      return s;
    }
    case 'enum':
      return z.enum(def.values as [string, ...string[]], t('validation.choose'));
    case 'json':
      return z.string().superRefine((v, ctx) => {
        const issue = jsonIssue(key, v, t);
        if (issue) ctx.addIssue({ code: 'custom', message: issue });
      });
    default:
      return z.string();
  }
}

export function sectionSchema(
  keys: readonly OptionKey[],
  t: TFunction,
  overrides: Partial<Record<OptionKey, z.ZodType>> = {},
) {
  const shape: Record<string, z.ZodType> = {};
  for (const k of keys) shape[fieldName(k)] = overrides[k] ?? optionSchema(k, t);
  return z.object(shape);
}
