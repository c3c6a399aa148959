import type { Dec } from '../decimal.js';
import { isKnownTimeZone } from './clock.js';
import { BillingExprError } from './errors.js';
import { evaluate, JsonValue, type ExprRequest } from './evaluate.js';
import { parseBillingExpr, type ExprNode } from './parser.js';

/**
 * new-api's billing expressions (`billing_setting.billing_expr`): a model's price as one expression over its token
 * counts in dollars per million tokens, e.g. `len <= 200000 ? tier("standard", p * 3 + c * 15) : tier("long", p * 6
 * + c * 22.5)`. Parsed once into a tree and evaluated in exact decimals; nothing is ever passed to `eval`.
 */

/** Token variables: input side p, len, cr, cc, cc1h, img, ai; output side c, img_o, ao. */
export const BILLING_EXPR_VARS = ['p', 'c', 'len', 'cr', 'cc', 'cc1h', 'img', 'img_o', 'ai', 'ao'] as const;
export type BillingExprVar = (typeof BILLING_EXPR_VARS)[number];

/** Functions and how many arguments each takes ([least, most]). */
const FUNCTIONS: Record<string, [number, number]> = {
  tier: [2, 2],
  header: [1, 1],
  param: [1, 1],
  has: [2, 2],
  hour: [1, 1],
  minute: [1, 1],
  weekday: [1, 1],
  month: [1, 1],
  day: [1, 1],
  max: [2, 16],
  min: [2, 16],
  abs: [1, 1],
  ceil: [1, 1],
  floor: [1, 1],
};
const CLOCK = new Set(['hour', 'minute', 'weekday', 'month', 'day']);
const VARS = new Set<string>(BILLING_EXPR_VARS);

/** The expression version new-api writes as a `v1:` prefix (the only one; no prefix means it). */
const VERSION_PREFIX = 'v1:';

export interface CompiledBillingExpr {
  /** The text as saved (the log shows it). */
  text: string;
  root: ExprNode;
  /** Token variables the expression reads: those it prices on their own are taken out of p and c. */
  uses: ReadonlySet<BillingExprVar>;
}

function check(node: ExprNode, uses: Set<BillingExprVar>): void {
  switch (node.t) {
    case 'var':
      if (!VARS.has(node.name)) throw new BillingExprError(`unknown variable ${node.name}`);
      uses.add(node.name as BillingExprVar);
      return;
    case 'call': {
      const arity = FUNCTIONS[node.name];
      if (!arity) throw new BillingExprError(`unknown function ${node.name}`, node.at);
      if (node.args.length < arity[0] || node.args.length > arity[1])
        throw new BillingExprError(
          `${node.name} takes ${arity[0] === arity[1] ? arity[0] : `${arity[0]} to ${arity[1]}`} arguments`,
          node.at,
        );
      const zone = node.args[0];
      if (CLOCK.has(node.name) && zone?.t === 'str' && !isKnownTimeZone(zone.value))
        throw new BillingExprError(`unknown time zone "${zone.value}"`, node.at);
      for (const a of node.args) check(a, uses);
      return;
    }
    case 'unary':
      check(node.arg, uses);
      return;
    case 'binary':
      check(node.left, uses);
      check(node.right, uses);
      return;
    case 'cond':
      check(node.test, uses);
      check(node.then, uses);
      check(node.else, uses);
      return;
    default:
      return;
  }
}

/** Parses and checks an expression; throws BillingExprError with what is wrong and where. */
export function compileBillingExpr(text: string): CompiledBillingExpr {
  const body = text.startsWith(VERSION_PREFIX) ? text.slice(VERSION_PREFIX.length) : text;
  const root = parseBillingExpr(body);
  const uses = new Set<BillingExprVar>();
  check(root, uses);
  return { text, root, uses };
}

/** Compiled expressions by text: the saved set is small, and re-parsing on every call would be waste. */
const MAX_CACHED = 512;
const cache = new Map<string, CompiledBillingExpr>();

/** compileBillingExpr, remembered by text (bounded). */
export function cachedBillingExpr(text: string): CompiledBillingExpr {
  const hit = cache.get(text);
  if (hit) return hit;
  const compiled = compileBillingExpr(text);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(text, compiled);
  return compiled;
}

export interface BillingExprResult {
  /** Dollars per million tokens × tokens: the call's cost × 10^6, exact. */
  cost: Dec;
  tier: string | undefined;
}

/** Runs an expression for token counts; throws BillingExprError when it does not yield a number of at least 0. */
export function runBillingExpr(
  e: CompiledBillingExpr,
  vars: Readonly<Record<string, number>>,
  request: ExprRequest | undefined,
  now: number,
): BillingExprResult {
  const env = { vars, request, now, tier: undefined as string | undefined };
  const out = evaluate(e.root, env);
  if (out === null || typeof out !== 'object' || out instanceof JsonValue)
    throw new BillingExprError('the expression must give a number');
  if (out.m < 0n) throw new BillingExprError('the expression gave a negative price');
  return { cost: out, tier: env.tier };
}

/** Token counts a saved expression is tried with (new-api's save check: none, small, large, very large). */
const SMOKE_TOKENS = [0, 1_000, 100_000, 1_000_000];
/** Requests it is tried with: none, and one with the fields and headers rules commonly read. */
const SMOKE_REQUESTS: (ExprRequest | undefined)[] = [
  undefined,
  {
    headers: { 'anthropic-beta': 'fast-mode-2026-02-01' },
    body: {
      service_tier: 'flex',
      stream_options: { include_usage: true },
      messages: Array.from({ length: 21 }, (_, i) => i),
    },
  },
];

/**
 * Why an expression cannot be saved: it does not parse, or it fails or gives a negative price for sample token
 * counts and requests (the check new-api runs on save). Undefined when it can be saved.
 */
export function billingExprProblem(text: string): string | undefined {
  try {
    const e = compileBillingExpr(text);
    const now = Date.now();
    for (const n of SMOKE_TOKENS)
      for (const request of SMOKE_REQUESTS) {
        const vars = Object.fromEntries(
          BILLING_EXPR_VARS.map((v) => [v, v === 'p' || v === 'c' || v === 'len' ? n : 0]),
        );
        runBillingExpr(e, vars, request, now);
      }
    return undefined;
  } catch (err) {
    if (err instanceof BillingExprError || err instanceof RangeError) return err.message;
    throw err;
  }
}
