import { createRequire } from 'node:module';
import type * as GptTokenizer from 'gpt-tokenizer';
import type { IRRequest } from '../ir/types.js';

/**
 * The tokenizer, loaded on first use: its o200k tables take about 40 MB of RSS, and most calls never count (the
 * upstream reports usage). The first count pays the load once (about 0.5 s; 0.9 s on a busy machine).
 */
let tokenizer: typeof GptTokenizer | undefined;
const loadTokenizer = (): typeof GptTokenizer =>
  (tokenizer ??= createRequire(import.meta.url)('gpt-tokenizer') as typeof GptTokenizer);

/** Counts tokens of text (o200k encoding); used only when an upstream reports no usage. */
export const countTextTokens = (text: string): number => (text ? loadTokenizer().countTokens(text) : 0);

type Message = { content?: unknown; name?: string };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : ''))
      .join('');
  return '';
}

/** Prompt tokens of an OpenAI request body, counted (3 tokens of framing per message, as OpenAI documents). */
export function countPromptTokens(body: Record<string, unknown>): number {
  if (Array.isArray(body.messages)) {
    let n = 3 + countTextTokens(textOf(body.system));
    for (const m of body.messages as Message[]) n += 3 + countTextTokens(textOf(m.content)) + (m.name ? 1 : 0);
    return n;
  }
  // Gemini: contents of parts, and the system instruction.
  if (Array.isArray(body.contents)) {
    let n = countTextTokens(textOf((body.systemInstruction as { parts?: unknown } | undefined)?.parts));
    for (const c of body.contents as { parts?: unknown }[]) n += 3 + countTextTokens(textOf(c?.parts));
    return n;
  }
  const input = body.input ?? body.prompt;
  if (typeof input === 'string') return countTextTokens(input);
  if (Array.isArray(input))
    return input.reduce<number>(
      (n, x) => n + (typeof x === 'string' ? countTextTokens(x) : Array.isArray(x) ? x.length : 0),
      0,
    );
  return 0;
}

type AnswerChoice = {
  message?: { content?: unknown; reasoning_content?: unknown; tool_calls?: { function?: { arguments?: unknown } }[] };
  text?: unknown;
};

/**
 * Completion tokens of a plain OpenAI-format answer (chat or completions) by our own count: the text of every
 * choice (content, reasoning, tool-call arguments; completions' text), as streams are counted.
 */
export function countAnswerTokens(answer: unknown, countTokens: (text: string) => number = countTextTokens): number {
  const choices = (answer as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return 0;
  let text = '';
  for (const c of choices as AnswerChoice[]) {
    const m = c?.message;
    text +=
      textOf(m?.content) +
      (typeof m?.reasoning_content === 'string' ? m.reasoning_content : '') +
      (typeof c?.text === 'string' ? c.text : '');
    if (Array.isArray(m?.tool_calls))
      for (const t of m.tool_calls) text += typeof t?.function?.arguments === 'string' ? t.function.arguments : '';
  }
  return countTokens(text);
}

/** Tokens of framing a vendor adds per message, part or document (OpenAI documents 3 per message). */
const FRAMING_TOKENS = 3;

/**
 * Tokens of every text in a request body (each string counted on its own, plus framing per object): at least what a
 * vendor counts of the text, for holds where the balance is too small for the prompt's ceiling. Inline media
 * (`data:` URLs) are left to the vendor's own rule, as the estimate leaves them.
 */
export function countBodyTokens(body: unknown): number {
  if (typeof body === 'string') return body.startsWith('data:') ? 0 : countTextTokens(body);
  if (Array.isArray(body)) return body.reduce<number>((n, x) => n + countBodyTokens(x), 0);
  if (body && typeof body === 'object')
    return Object.values(body).reduce<number>((n, x) => n + countBodyTokens(x), FRAMING_TOKENS);
  return 0;
}

/**
 * A cheap estimate of prompt tokens (no tokenizer on the hot path): about one token per 3 bytes of the prompt
 * fields' JSON. Not a bound (text of rare characters costs a token per byte): holds rest on `promptCeiling`.
 */
export function estimatePromptTokens(body: Record<string, unknown>, bodyBytes: number): number {
  return Math.ceil(bodyBytes / 3) + (Array.isArray(body.messages) ? 3 * (body.messages as unknown[]).length : 0);
}

/** Prompt tokens of a request in the IR (text of system, messages, tool calls/results and tool schemas). */
export function countIRPromptTokens(ir: IRRequest): number {
  let n = countTextTokens(ir.system.join('\n'));
  for (const m of ir.messages) {
    n += 3;
    for (const p of m.parts) {
      if (p.type === 'text' || p.type === 'thinking') n += countTextTokens(p.text);
      else if (p.type === 'tool_call') n += countTextTokens(p.name + p.arguments);
      else if (p.type === 'tool_result') n += countTextTokens(p.content);
    }
  }
  for (const t of ir.tools ?? [])
    n += countTextTokens(`${t.name} ${t.description ?? ''} ${JSON.stringify(t.parameters)}`);
  return n;
}
