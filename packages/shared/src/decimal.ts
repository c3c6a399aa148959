/**
 * Exact decimal arithmetic for money: values are BigInt mantissas with a power-of-ten scale, so ratios such as
 * 0.075 or 1.1 multiply without binary floating-point error. Only what billing needs: parse, add, multiply,
 * round half away from zero to an integer.
 */
export interface Dec {
  m: bigint;
  /** The value is m / 10^s. */
  s: number;
}

const TEN = 10n;
/** Powers of ten up to this scale are computed once (every price's scale is far below it). */
const CACHED_POWERS = 64;
const POWERS_OF_TEN = Array.from({ length: CACHED_POWERS }, (_, i) => TEN ** BigInt(i));
const pow10 = (n: number): bigint => POWERS_OF_TEN[n] ?? TEN ** BigInt(n);

const parsedNumbers = new Map<number, Dec>();

/** Parses a finite number through its shortest decimal text (what an operator typed: 0.075 stays 0.075). */
export function dec(value: number | string | bigint): Dec {
  if (typeof value === 'bigint') return { m: value, s: 0 };
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return { m: BigInt(value), s: 0 };
    // Ratios repeat on every call: remember their parse (Dec values are never mutated).
    const hit = parsedNumbers.get(value);
    if (hit) return hit;
    const d = parseDec(numberText(value));
    if (parsedNumbers.size < 10_000) parsedNumbers.set(value, d);
    return d;
  }
  return parseDec(value.trim());
}

function parseDec(text: string): Dec {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new Error(`not a decimal number: ${text}`);
  const [, sign, int, frac = '', exp = '0'] = match;
  let m = BigInt(`${int || '0'}${frac}`);
  let s = frac.length - Number(exp);
  if (s < 0) {
    m *= pow10(-s);
    s = 0;
  }
  return { m: sign === '-' ? -m : m, s };
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  return String(n);
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  if (a.s === b.s) return [a.m, b.m, a.s];
  if (a.s > b.s) return [a.m, b.m * pow10(a.s - b.s), a.s];
  return [a.m * pow10(b.s - a.s), b.m, b.s];
}

export const add = (a: Dec, b: Dec): Dec => {
  const [x, y, s] = align(a, b);
  return { m: x + y, s };
};

export const sub = (a: Dec, b: Dec): Dec => add(a, { m: -b.m, s: b.s });

export const mul = (a: Dec, b: Dec): Dec => ({ m: a.m * b.m, s: a.s + b.s });

/** −1, 0 or 1 as a is below, equal to or above b. */
export function compare(a: Dec, b: Dec): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** a ÷ b to `scale` decimal places, rounded half away from zero; throws on a zero divisor. */
export function divide(a: Dec, b: Dec, scale: number): Dec {
  if (b.m === 0n) throw new RangeError('division by zero');
  // a/b = (a.m · 10^b.s) / (b.m · 10^a.s); scaled by 10^scale before the integer division.
  let num = a.m * pow10(b.s + scale);
  let den = b.m * pow10(a.s);
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const q = abs / den;
  const rounded = (abs % den) * 2n >= den ? q + 1n : q;
  return { m: neg ? -rounded : rounded, s: scale };
}

/** The remainder of a ÷ b with the sign of a (exact); throws on a zero divisor. */
export function remainder(a: Dec, b: Dec): Dec {
  const [x, y, s] = align(a, b);
  if (y === 0n) throw new RangeError('division by zero');
  return { m: x % y, s };
}

/** Rounds toward −∞ (floor) or +∞ (ceil) to an integer. */
export function floorToInt(a: Dec, up = false): bigint {
  if (a.s <= 0) return a.m * pow10(-a.s);
  const p = pow10(a.s);
  const q = a.m / p;
  const r = a.m % p;
  if (r === 0n) return q;
  if (up) return r > 0n ? q + 1n : q;
  return r < 0n ? q - 1n : q;
}

export const isZero = (a: Dec): boolean => a.m === 0n;
export const isNegative = (a: Dec): boolean => a.m < 0n;
export const lessOrEqualZero = (a: Dec): boolean => a.m <= 0n;

/** Rounds half away from zero to an integer. */
export function roundToInt(a: Dec): bigint {
  if (a.s === 0) return a.m;
  const p = pow10(a.s);
  const neg = a.m < 0n;
  const abs = neg ? -a.m : a.m;
  const q = abs / p;
  const r = abs % p;
  const rounded = r * 2n >= p ? q + 1n : q;
  return neg ? -rounded : rounded;
}

export function toNumber(a: Dec): number {
  return Number(a.m) / 10 ** a.s;
}
