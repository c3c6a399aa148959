import { add, compare, dec, divide, floorToInt, isNegative, mul, remainder, sub, type Dec } from '../decimal.js';
import { clockFields, type ClockFields } from './clock.js';
import { BillingExprError } from './errors.js';
import type { ExprNode } from './parser.js';

/** A JSON value read from the request body that is neither a number, a string, a boolean nor null. */
export class JsonValue {
  constructor(readonly value: unknown) {}
}

/** What an expression computes with: exact decimals, text, booleans, nil, and JSON read by `param`. */
export type Value = Dec | string | boolean | null | JsonValue;

/** The call a price is for, as `header()` and `param()` read it. */
export interface ExprRequest {
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body (undefined for none). */
  body: unknown;
}

export interface ExprEnv {
  /** Token variables (p, c, len, cr, …). */
  vars: Readonly<Record<string, number>>;
  request: ExprRequest | undefined;
  /** The time the call started (ms since the epoch): time-of-day rules read it. */
  now: number;
  /** The last tier name `tier()` recorded. */
  tier?: string;
}

/** Decimal places a division keeps (prices are far coarser). */
const DIVISION_SCALE = 20;
/** The largest integer exponent `**` takes. */
export const MAX_EXPONENT = 16;

const isNum = (v: Value): v is Dec => typeof v === 'object' && v !== null && !(v instanceof JsonValue);

function num(v: Value, what: string): Dec {
  if (!isNum(v)) throw new BillingExprError(`${what} needs a number, got ${typeName(v)}`);
  return v;
}

function bool(v: Value, what: string): boolean {
  if (typeof v !== 'boolean') throw new BillingExprError(`${what} needs true or false, got ${typeName(v)}`);
  return v;
}

function typeName(v: Value): string {
  if (v === null) return 'nil';
  if (isNum(v)) return 'a number';
  if (v instanceof JsonValue) return Array.isArray(v.value) ? 'a list' : 'an object';
  return typeof v === 'string' ? 'text' : 'true/false';
}

/** A JSON value as an expression value. */
function fromJson(v: unknown): Value {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? dec(v) : null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  return new JsonValue(v);
}

/** The text of a value, as `has` searches it. */
function text(v: Value): string {
  if (v === null) return '';
  if (isNum(v)) return decText(v);
  if (v instanceof JsonValue) return JSON.stringify(v.value);
  return String(v);
}

function decText(d: Dec): string {
  const neg = d.m < 0n;
  const digits = (neg ? -d.m : d.m).toString().padStart(d.s + 1, '0');
  const int = d.s > 0 ? digits.slice(0, -d.s) : digits;
  const frac = d.s > 0 ? digits.slice(-d.s).replace(/0+$/, '') : '';
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

/** A gjson-style path (`a.b`, `messages.0.role`, `messages.#` for a list's length) into the body. */
function readPath(body: unknown, path: string): unknown {
  let at: unknown = body;
  for (const part of path.split('.')) {
    if (Array.isArray(at)) {
      if (part === '#') at = at.length;
      else at = /^\d+$/.test(part) ? at[Number(part)] : undefined;
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, part)) {
      at = (at as Record<string, unknown>)[part];
    } else return undefined;
  }
  return at;
}

function header(req: ExprRequest | undefined, name: string): string {
  const v = req?.headers[name.trim().toLowerCase()];
  return (Array.isArray(v) ? v.join(', ') : (v ?? '')).trim();
}

function equal(a: Value, b: Value): boolean {
  if (isNum(a) && isNum(b)) return compare(a, b) === 0;
  if (a instanceof JsonValue || b instanceof JsonValue) return text(a) === text(b) && typeName(a) === typeName(b);
  return a === b;
}

/** An ordering comparison: numbers with numbers, text with text; anything else is false (never an error). */
function ordered(op: string, a: Value, b: Value): boolean {
  let c: number;
  if (isNum(a) && isNum(b)) c = compare(a, b);
  else if (typeof a === 'string' && typeof b === 'string') c = a < b ? -1 : a > b ? 1 : 0;
  else return false;
  return op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0;
}

function power(base: Dec, exponent: Dec): Dec {
  const e = floorToInt(exponent);
  if (compare(dec(e), exponent) !== 0 || e < 0n || e > BigInt(MAX_EXPONENT))
    throw new BillingExprError(`** takes a whole exponent from 0 to ${MAX_EXPONENT}`);
  let out = dec(1);
  for (let i = 0n; i < e; i++) out = mul(out, base);
  return out;
}

function arithmetic(op: string, a: Value, b: Value): Value {
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  const x = num(a, op);
  const y = num(b, op);
  switch (op) {
    case '+':
      return add(x, y);
    case '-':
      return sub(x, y);
    case '*':
      return mul(x, y);
    case '/':
      if (y.m === 0n) throw new BillingExprError('division by zero');
      return divide(x, y, DIVISION_SCALE);
    case '%':
      if (y.m === 0n) throw new BillingExprError('division by zero');
      return remainder(x, y);
    default:
      return power(x, y);
  }
}

const CLOCK_FUNCTIONS = new Set<keyof ClockFields>(['hour', 'minute', 'weekday', 'month', 'day']);

function call(node: Extract<ExprNode, { t: 'call' }>, env: ExprEnv): Value {
  const args = node.args.map((a) => evaluate(a, env));
  const name = node.name;
  if (CLOCK_FUNCTIONS.has(name as keyof ClockFields))
    return dec(clockFields(env.now, text(args[0] ?? ''))[name as keyof ClockFields]);
  switch (name) {
    case 'tier':
      env.tier = text(args[0] ?? null);
      return num(args[1] ?? null, 'tier');
    case 'header':
      return header(env.request, text(args[0] ?? null));
    case 'param': {
      const path = text(args[0] ?? null).trim();
      return path === '' ? null : fromJson(readPath(env.request?.body, path));
    }
    case 'has': {
      const needle = text(args[1] ?? null);
      return args[0] !== null && needle !== '' && text(args[0] ?? null).includes(needle);
    }
    case 'max':
    case 'min': {
      const nums = args.map((a) => num(a, name));
      return nums.reduce((m, v) => ((name === 'max' ? compare(v, m) > 0 : compare(v, m) < 0) ? v : m));
    }
    case 'abs': {
      const v = num(args[0] ?? null, 'abs');
      return isNegative(v) ? { m: -v.m, s: v.s } : v;
    }
    case 'ceil':
      return dec(floorToInt(num(args[0] ?? null, 'ceil'), true));
    case 'floor':
      return dec(floorToInt(num(args[0] ?? null, 'floor')));
    default:
      throw new BillingExprError(`unknown function ${name}`, node.at);
  }
}

/** Evaluates a checked expression tree (see compile.ts). Throws BillingExprError on a type error at run time. */
export function evaluate(node: ExprNode, env: ExprEnv): Value {
  switch (node.t) {
    case 'num':
    case 'str':
    case 'bool':
      return node.value;
    case 'nil':
      return null;
    case 'var':
      return dec(env.vars[node.name] ?? 0);
    case 'call':
      return call(node, env);
    case 'unary': {
      const v = evaluate(node.arg, env);
      if (node.op === '!') return !bool(v, '!');
      const n = num(v, node.op);
      return node.op === '-' ? { m: -n.m, s: n.s } : n;
    }
    case 'cond':
      return bool(evaluate(node.test, env), '? :') ? evaluate(node.then, env) : evaluate(node.else, env);
    case 'binary':
      return binary(node, env);
  }
}

function binary(node: Extract<ExprNode, { t: 'binary' }>, env: ExprEnv): Value {
  const { op } = node;
  if (op === '&&') return bool(evaluate(node.left, env), '&&') && bool(evaluate(node.right, env), '&&');
  if (op === '||') return bool(evaluate(node.left, env), '||') || bool(evaluate(node.right, env), '||');
  const a = evaluate(node.left, env);
  if (op === '??') return a === null ? evaluate(node.right, env) : a;
  const b = evaluate(node.right, env);
  if (op === '==') return equal(a, b);
  if (op === '!=') return !equal(a, b);
  if (op === '<' || op === '>' || op === '<=' || op === '>=') return ordered(op, a, b);
  return arithmetic(op, a, b);
}
