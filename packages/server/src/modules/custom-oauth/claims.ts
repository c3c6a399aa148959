// Reading a provider's user information: values by JSON path, and new-api's access policy over them.

/** Deepest nesting of an access policy's groups. */
const MAX_POLICY_DEPTH = 8;
/** Most conditions and groups in one policy, all levels together. */
const MAX_POLICY_NODES = 200;

export const POLICY_OPS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'exists',
  'not_exists',
] as const;
type PolicyOp = (typeof POLICY_OPS)[number];

/**
 * The value at a dotted path of a JSON object ("sub", "data.user.id", "groups.0"): object keys, or array
 * indexes where the value is an array; a key holding a dot is reached with "\.". undefined when absent.
 */
export function valueAt(doc: unknown, path: string): unknown {
  const trimmed = path.trim();
  if (!trimmed) return undefined;
  const keys = trimmed.split(/(?<!\\)\./).map((k) => k.replace(/\\\./g, '.'));
  let cur: unknown = doc;
  for (const key of keys) {
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(key)) return undefined;
      cur = cur[Number(key)];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, key)) {
      cur = (cur as Record<string, unknown>)[key];
    } else return undefined;
  }
  return cur;
}

/** A scalar value as text ('' for objects, arrays, null and absent values). */
export function textAt(doc: unknown, path: string): string {
  const v = valueAt(doc, path);
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return '';
}

interface Condition {
  field: string;
  op: PolicyOp;
  value: unknown;
}
export interface AccessPolicy {
  logic: 'and' | 'or';
  conditions: Condition[];
  groups: AccessPolicy[];
}

/** A condition the user did not meet (for the refusal's message). */
export interface PolicyFailure {
  field: string;
  op: string;
  expected: unknown;
  current: unknown;
}

/** Parses and checks an access policy's JSON; throws an Error naming the problem. */
export function parseAccessPolicy(raw: string): AccessPolicy {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('access_policy must be valid JSON');
  }
  const count = { n: 0 };
  return checkPolicy(parsed, 0, count, 'access_policy');
}

function checkPolicy(raw: unknown, depth: number, count: { n: number }, where: string): AccessPolicy {
  if (depth > MAX_POLICY_DEPTH) throw new Error(`${where}: groups are nested too deeply`);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where} must be an object`);
  const p = raw as { logic?: unknown; conditions?: unknown; groups?: unknown };
  const logic = typeof p.logic === 'string' && p.logic.trim() ? p.logic.trim().toLowerCase() : 'and';
  if (logic !== 'and' && logic !== 'or') throw new Error(`${where}: unsupported logic ${String(p.logic)}`);
  const conditions = Array.isArray(p.conditions) ? p.conditions : [];
  const groups = Array.isArray(p.groups) ? p.groups : [];
  if (conditions.length === 0 && groups.length === 0)
    throw new Error(`${where} requires at least one condition or group`);
  count.n += conditions.length + groups.length;
  if (count.n > MAX_POLICY_NODES) throw new Error(`access_policy has more than ${MAX_POLICY_NODES} conditions`);
  return {
    logic,
    conditions: conditions.map((c, i) => checkCondition(c, `${where}.conditions[${i}]`)),
    groups: groups.map((g, i) => checkPolicy(g, depth + 1, count, `${where}.groups[${i}]`)),
  };
}

function checkCondition(raw: unknown, where: string): Condition {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where} must be an object`);
  const c = raw as { field?: unknown; op?: unknown; value?: unknown };
  const field = typeof c.field === 'string' ? c.field.trim() : '';
  if (!field) throw new Error(`${where}.field is required`);
  const op = (typeof c.op === 'string' ? c.op.trim().toLowerCase() : '') as PolicyOp;
  if (!(POLICY_OPS as readonly string[]).includes(op)) throw new Error(`${where}.op is unsupported`);
  if ((op === 'in' || op === 'not_in') && !Array.isArray(c.value))
    throw new Error(`${where}.value must be an array for op ${op}`);
  return { field, op, value: c.value };
}

const asNumber = (v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
};
const asText = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v as string).trim();

function compare(a: unknown, b: unknown): number {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  const s = asText(a);
  const t = asText(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

function contains(current: unknown, expected: unknown): boolean {
  if (Array.isArray(current)) return current.some((item) => compare(item, expected) === 0);
  if (typeof current === 'string') return current.includes(asText(expected));
  return false;
}

function meets(doc: unknown, c: Condition): boolean {
  const current = valueAt(doc, c.field);
  switch (c.op) {
    case 'exists':
      return current !== undefined;
    case 'not_exists':
      return current === undefined;
    case 'eq':
      return compare(current, c.value) === 0;
    case 'ne':
      return compare(current, c.value) !== 0;
    case 'gt':
      return compare(current, c.value) > 0;
    case 'gte':
      return compare(current, c.value) >= 0;
    case 'lt':
      return compare(current, c.value) < 0;
    case 'lte':
      return compare(current, c.value) <= 0;
    case 'in':
      return (c.value as unknown[]).some((v) => compare(current, v) === 0);
    case 'not_in':
      return !(c.value as unknown[]).some((v) => compare(current, v) === 0);
    case 'contains':
      return contains(current, c.value);
    case 'not_contains':
      return !contains(current, c.value);
  }
}

/** Whether the user information meets the policy; else the first condition that failed. */
export function evaluatePolicy(doc: unknown, p: AccessPolicy): PolicyFailure | undefined {
  let first: PolicyFailure | undefined;
  const failure = (c: Condition): PolicyFailure => ({
    field: c.field,
    op: c.op,
    expected: c.value,
    current: valueAt(doc, c.field),
  });
  for (const c of p.conditions) {
    const ok = meets(doc, c);
    if (p.logic === 'or' && ok) return undefined;
    if (!ok) {
      first ??= failure(c);
      if (p.logic === 'and') return first;
    }
  }
  for (const g of p.groups) {
    const f = evaluatePolicy(doc, g);
    if (p.logic === 'or' && !f) return undefined;
    if (f) {
      first ??= f;
      if (p.logic === 'and') return first;
    }
  }
  return p.logic === 'or' ? first : undefined;
}

/** Longest denial message shown. */
const MAX_DENIAL_CHARS = 300;

/**
 * The refusal text: root's template (access_denied_message, with {{provider}}, {{field}}, {{op}}, {{required}},
 * {{current}} and {{claim.path}} filled in) or a default naming the failed condition.
 */
export function denialMessage(template: string, provider: string, doc: unknown, f: PolicyFailure): string {
  const text = template.trim()
    ? template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, key: string) => {
        if (key === 'provider') return provider;
        if (key === 'field') return f.field;
        if (key === 'op') return f.op;
        if (key === 'required') return asText(f.expected);
        if (key === 'current') return asText(f.current);
        if (key.startsWith('claim.')) return textAt(doc, key.slice('claim.'.length));
        return '';
      })
    : `${provider} sign-in is not allowed for this account (${f.field} ${f.op} ${asText(f.expected)})`;
  return text.slice(0, MAX_DENIAL_CHARS);
}
