import { dec, type Dec } from '../decimal.js';
import { BillingExprError } from './errors.js';
import { tokenize, type Token } from './lexer.js';

/** The parsed form of a billing expression. Numbers are exact decimals. */
export type ExprNode =
  | { t: 'num'; value: Dec }
  | { t: 'str'; value: string }
  | { t: 'bool'; value: boolean }
  | { t: 'nil' }
  | { t: 'var'; name: string }
  | { t: 'call'; name: string; args: ExprNode[]; at: number }
  | { t: 'unary'; op: '-' | '+' | '!'; arg: ExprNode }
  | { t: 'binary'; op: string; left: ExprNode; right: ExprNode }
  | { t: 'cond'; test: ExprNode; then: ExprNode; else: ExprNode };

/** Bounds of what is parsed: an expression is saved by root, but is evaluated on every call of its model. */
export const BILLING_EXPR_MAX_LENGTH = 8_192;
export const BILLING_EXPR_MAX_NODES = 2_000;
export const BILLING_EXPR_MAX_DEPTH = 64;

/** Binary operators and their precedence (expr-lang's order: higher binds tighter). */
const BINARY: Record<string, number> = {
  '||': 10,
  or: 10,
  '&&': 15,
  and: 15,
  '==': 20,
  '!=': 20,
  '<': 20,
  '>': 20,
  '<=': 20,
  '>=': 20,
  '+': 30,
  '-': 30,
  '*': 60,
  '/': 60,
  '%': 60,
  '**': 100,
  '^': 100,
  '??': 500,
};
/** Exponentiation groups to the right. */
const RIGHT_ASSOCIATIVE = new Set(['**', '^']);
const UNARY_PRECEDENCE = 90;
/** Word operators spelled as names, and what they mean. */
const WORD_OPERATORS: Record<string, string> = { or: '||', and: '&&', not: '!' };
/** expr-lang names this grammar does not take: each is refused with its own reason. */
const UNSUPPORTED_WORDS = new Set(['in', 'matches', 'contains', 'startsWith', 'endsWith', 'let']);

class Parser {
  private i = 0;
  private nodes = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    return this.tokens[this.i++]!;
  }

  private isOp(text: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.text === text;
  }

  private expect(text: string): void {
    const t = this.peek();
    if (!(t.kind === 'op' && t.text === text)) throw new BillingExprError(`expected "${text}"`, t.at);
    this.i++;
  }

  private node<N extends ExprNode>(n: N, at: number): N {
    if (++this.nodes > BILLING_EXPR_MAX_NODES)
      throw new BillingExprError(`more than ${BILLING_EXPR_MAX_NODES} parts in one expression`, at);
    return n;
  }

  /** The whole input as one expression. */
  parseAll(): ExprNode {
    const e = this.expression(0);
    const t = this.peek();
    if (t.kind !== 'end') throw new BillingExprError('unexpected text after the expression', t.at);
    return e;
  }

  /** A conditional (lowest precedence, groups to the right) or a binary expression. */
  private expression(depth: number): ExprNode {
    if (depth > BILLING_EXPR_MAX_DEPTH)
      throw new BillingExprError(`nested more than ${BILLING_EXPR_MAX_DEPTH} deep`, this.peek().at);
    const at = this.peek().at;
    const test = this.binary(0, depth + 1);
    if (!this.isOp('?')) return test;
    this.i++;
    const then = this.expression(depth + 1);
    this.expect(':');
    const otherwise = this.expression(depth + 1);
    return this.node({ t: 'cond', test, then, else: otherwise }, at);
  }

  /** The binary operator at the current token, by its canonical spelling. */
  private binaryOperator(): string | undefined {
    const t = this.peek();
    if (t.kind === 'op') return BINARY[t.text] === undefined ? undefined : t.text;
    if (t.kind !== 'name') return undefined;
    if (UNSUPPORTED_WORDS.has(t.text)) throw new BillingExprError(`the operator "${t.text}" is not supported`, t.at);
    const word = WORD_OPERATORS[t.text];
    return word && BINARY[word] !== undefined ? word : undefined;
  }

  private binary(minPrecedence: number, depth: number): ExprNode {
    if (depth > BILLING_EXPR_MAX_DEPTH)
      throw new BillingExprError(`nested more than ${BILLING_EXPR_MAX_DEPTH} deep`, this.peek().at);
    let left = this.unary(depth + 1);
    for (;;) {
      const op = this.binaryOperator();
      if (op === undefined) return left;
      const precedence = BINARY[op]!;
      if (precedence < minPrecedence) return left;
      const at = this.next().at;
      const right = this.binary(RIGHT_ASSOCIATIVE.has(op) ? precedence : precedence + 1, depth + 1);
      left = this.node({ t: 'binary', op, left, right }, at);
    }
  }

  private unary(depth: number): ExprNode {
    const t = this.peek();
    const op = t.kind === 'op' ? t.text : t.kind === 'name' ? WORD_OPERATORS[t.text] : undefined;
    if (op === '-' || op === '+' || op === '!') {
      this.i++;
      const arg = this.binary(UNARY_PRECEDENCE, depth + 1);
      return this.node({ t: 'unary', op, arg }, t.at);
    }
    return this.primary(depth);
  }

  private primary(depth: number): ExprNode {
    const t = this.next();
    switch (t.kind) {
      case 'num':
        return this.node({ t: 'num', value: dec(t.text) }, t.at);
      case 'str':
        return this.node({ t: 'str', value: t.value }, t.at);
      case 'name':
        return this.named(t, depth);
      case 'op':
        if (t.text === '(') {
          const inner = this.expression(depth + 1);
          this.expect(')');
          return inner;
        }
        throw new BillingExprError(`unexpected "${t.text}"`, t.at);
      default:
        throw new BillingExprError('the expression ends too early', t.at);
    }
  }

  private named(t: Extract<Token, { kind: 'name' }>, depth: number): ExprNode {
    if (t.text === 'true' || t.text === 'false') return this.node({ t: 'bool', value: t.text === 'true' }, t.at);
    if (t.text === 'nil') return this.node({ t: 'nil' }, t.at);
    if (UNSUPPORTED_WORDS.has(t.text)) throw new BillingExprError(`"${t.text}" is not supported`, t.at);
    if (!this.isOp('(')) return this.node({ t: 'var', name: t.text }, t.at);
    this.i++;
    const args: ExprNode[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        args.push(this.expression(depth + 1));
        if (!this.isOp(',')) break;
        this.i++;
      }
    }
    this.expect(')');
    return this.node({ t: 'call', name: t.text, args, at: t.at }, t.at);
  }
}

/** Parses an expression's text (without its version prefix) into its tree; throws BillingExprError. */
export function parseBillingExpr(text: string): ExprNode {
  if (text.length > BILLING_EXPR_MAX_LENGTH)
    throw new BillingExprError(`longer than ${BILLING_EXPR_MAX_LENGTH} characters`);
  if (text.trim() === '') throw new BillingExprError('the expression is empty');
  return new Parser(tokenize(text)).parseAll();
}
