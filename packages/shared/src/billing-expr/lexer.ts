import { BillingExprError } from './errors.js';

/**
 * Tokens of new-api's billing expressions (the subset of expr-lang its console writes and its docs show): numbers,
 * double- or single-quoted strings, names, and the operators below.
 */
export type Token =
  | { kind: 'num'; text: string; at: number }
  | { kind: 'str'; value: string; at: number }
  | { kind: 'name'; text: string; at: number }
  | { kind: 'op'; text: string; at: number }
  | { kind: 'end'; at: number };

/** Operators, longest first so that `**` is read before `*` and `<=` before `<`. */
const OPERATORS = [
  '**',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '<',
  '>',
  '!',
  '?',
  ':',
  '(',
  ')',
  ',',
];

const NUMBER = /(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_$][A-Za-z0-9_$]*/y;

/** The match of a sticky pattern at `at`, or undefined. */
function matchAt(pattern: RegExp, src: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(src)?.[0];
}
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  '"': '"',
  "'": "'",
  '/': '/',
  b: '\b',
  f: '\f',
};

function readString(src: string, start: number): { value: string; end: number } {
  const quote = src[start]!;
  let value = '';
  let i = start + 1;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === quote) return { value, end: i + 1 };
    if (ch === '\\') {
      const next = src[i + 1] ?? '';
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      const escaped = ESCAPES[next];
      if (escaped === undefined) throw new BillingExprError(`unknown escape \\${next} in a string`, i);
      value += escaped;
      i += 2;
      continue;
    }
    value += ch;
    i++;
  }
  throw new BillingExprError('a string is not closed', start);
}

/** Splits an expression into tokens; throws BillingExprError at the first character that starts none. */
export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const { value, end } = readString(src, i);
      out.push({ kind: 'str', value, at: i });
      i = end;
      continue;
    }
    const num = matchAt(NUMBER, src, i);
    if (num) {
      out.push({ kind: 'num', text: num.replaceAll('_', ''), at: i });
      i += num.length;
      continue;
    }
    const name = matchAt(NAME, src, i);
    if (name) {
      out.push({ kind: 'name', text: name, at: i });
      i += name.length;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) throw new BillingExprError(`unexpected character "${ch}"`, i);
    out.push({ kind: 'op', text: op, at: i });
    i += op.length;
  }
  out.push({ kind: 'end', at: src.length });
  return out;
}
