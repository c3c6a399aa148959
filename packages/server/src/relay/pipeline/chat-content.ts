import { CappedText } from './capped-text.js';
import type { IRPart } from '../ir/types.js';
import { promptTexts } from './sensitive.js';
import type { InboundCall } from './types.js';

/**
 * The prompt as logged: system and message text, tool results, or the prompt fields (promptTexts), blank-line
 * separated. Called after the answer was relayed, so a body the converter cannot read gives '' rather than an error.
 */
export function promptContent(call: InboundCall): string {
  const out = new CappedText();
  let texts: string[];
  try {
    texts = promptTexts(call);
  } catch {
    return '';
  }
  let i = 0;
  for (const text of texts) {
    out.add(text, String(i++));
    if (out.cut) break;
  }
  return out.value();
}

/** The answer of an IR response as the client receives it: reasoning, text, and tool-call arguments. */
export function irAnswerContent(parts: IRPart[]): string {
  const out = new CappedText();
  let tool = 0;
  for (const p of parts) {
    if (p.type === 'text' || p.type === 'thinking') out.add(p.text, p.type);
    else if (p.type === 'tool_call') out.add(p.arguments, `tool${tool++}`);
  }
  return out.value();
}

interface OpenAIAnswerJson {
  choices?: {
    message?: { content?: unknown; reasoning_content?: unknown; tool_calls?: { function?: { arguments?: unknown } }[] };
    text?: unknown;
  }[];
}

/** Adds the answer of an OpenAI chat or completions body (reasoning, content, tool-call arguments, text). */
function addOpenAIAnswer(json: OpenAIAnswerJson, out: CappedText): void {
  for (const c of Array.isArray(json.choices) ? json.choices : []) {
    const m = c?.message;
    if (typeof m?.reasoning_content === 'string') out.add(m.reasoning_content, 'thinking');
    if (typeof m?.content === 'string') out.add(m.content);
    let tool = 0;
    for (const tc of Array.isArray(m?.tool_calls) ? m.tool_calls : []) {
      if (typeof tc?.function?.arguments === 'string') out.add(tc.function.arguments, `tool${tool++}`);
    }
    if (typeof c?.text === 'string') out.add(c.text);
  }
}

/** The decoded value of the first `"key": "…"` string in JSON text that may be cut short (up to where it ends). */
function leadingStringValue(text: string, key: string): string | undefined {
  const m = new RegExp(`"${key}"\\s*:\\s*"`).exec(text);
  if (!m) return undefined;
  const start = m.index + m[0].length;
  let i = start;
  while (i < text.length) {
    const ch = text.charCodeAt(i);
    if (ch === 92) i += 2;
    else if (ch === 34) break;
    else i++;
  }
  // A cut escape at the end (`\` or `\u12`) is left out.
  const raw = text.slice(start, Math.min(i, text.length)).replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * The answer of an OpenAI plain (JSON) answer from its first bytes: the whole body when `complete`, else the
 * start of an answer too long to keep whole, whose leading reasoning and content strings are read as far as
 * they go.
 */
export function openAIAnswerContent(head: string, complete: boolean): string {
  const out = new CappedText();
  if (complete) {
    try {
      addOpenAIAnswer(JSON.parse(head) as OpenAIAnswerJson, out);
      return out.value();
    } catch {
      // not JSON: read what can be read below
    }
  }
  for (const [key, kind] of [
    ['reasoning_content', 'thinking'],
    ['content', 'text'],
    ['text', 'text'],
  ] as const) {
    const v = leadingStringValue(head, key);
    if (v !== undefined) out.add(v, kind);
  }
  if (!complete) out.cut = out.cut || out.value() !== '';
  return out.value();
}
