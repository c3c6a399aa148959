import { isOptionKey, optionDefs, type OptionDef } from '@tollway/shared';

/** What a secret's value is written as (an empty value stays empty: "cleared" is not a secret). */
export const MASK = '***';

/** Field names whose values are secrets (passwords, keys, tokens, webhook targets, auth headers). */
const SECRET_NAME =
  /pass(word|wd)?|secret|token(?!s)|keys?$|credential|private|cookie|session|otp|webhook|authorization|signature/i;
/** Secret-looking text inside any value: API keys and bearer credentials. */
const SECRET_TEXT = /\b(sk-[A-Za-z0-9_-]{8,}|Bearer\s+\S+)/g;

const MAX_DEPTH = 4;
const MAX_STRING = 200;
const MAX_ITEMS = 20;
const MAX_KEYS = 40;

export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

/** True when the option's value must never be written: declared secret, or a secret-like name. */
export function isSecretOption(key: string): boolean {
  return (isOptionKey(key) && (optionDefs[key] as OptionDef).secret === true) || isSecretName(key);
}

function maskText(s: string): string {
  const cleaned = s.replace(SECRET_TEXT, MASK);
  return cleaned.length > MAX_STRING ? `${cleaned.slice(0, MAX_STRING)}…` : cleaned;
}

/** A JSON object or array inside a string (channel settings, header overrides) is masked like any other value. */
function maskJsonText(s: string, depth: number): string {
  const t = s.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return maskText(s);
  try {
    return maskText(JSON.stringify(maskValue(JSON.parse(t), depth + 1)));
  } catch {
    return maskText(s);
  }
}

/** A copy of `v` safe to store: secret fields masked at every depth, long text and lists cut. */
export function maskValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return maskJsonText(v, depth);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(v)) {
    const items = v.slice(0, MAX_ITEMS).map((x) => maskValue(x, depth + 1));
    return v.length > MAX_ITEMS ? [...items, `…(+${v.length - MAX_ITEMS})`] : items;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v).slice(0, MAX_KEYS))
    out[k] = isSecretName(k) ? maskSecret(x) : maskValue(x, depth + 1);
  return out;
}

/** A secret's value: empty stays empty (so a cleared secret shows), anything else is the mask. */
export function maskSecret(v: unknown): unknown {
  return v === '' || v === null || v === undefined ? v : MASK;
}
