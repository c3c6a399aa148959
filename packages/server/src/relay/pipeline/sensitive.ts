import type { Logger } from 'pino';
import type { OptionsService } from '../../core/options/service.js';
import { compileSensitiveWords, type SensitiveMatcher } from '../../lib/sensitive-words.js';
import { RelayError } from './errors.js';
import { openAIChat } from '../providers/openai/chat.js';
import type { RelaySettings } from './settings.js';
import type { InboundCall } from './types.js';

/**
 * Body fields that carry the prompt of the endpoints outside the chat formats: completions, embeddings, images,
 * speech and rerank (prompt, input, instructions, query, documents), Gemini embeddings (content, requests).
 */
const PROMPT_FIELDS = ['prompt', 'input', 'instructions', 'query', 'documents', 'content', 'requests'] as const;

/** Strings of a prompt field: a string, arrays of them, or objects with text, parts or content (Gemini's shape). */
function stringsOf(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (v && typeof v === 'object') {
    const o = v as { text?: unknown; parts?: unknown; content?: unknown };
    if (typeof o.text === 'string') out.push(o.text);
    if (o.parts !== undefined) stringsOf(o.parts, out);
    if (o.content !== undefined) stringsOf(o.content, out);
  }
}

/** The text a caller sends as its prompt: system and message text of the chat formats, else the prompt fields. */
export function promptTexts(call: InboundCall): string[] {
  const out: string[] = [];
  if (
    call.surface ||
    (call.format === openAIChat && call.openaiEndpoint !== undefined && call.openaiEndpoint !== 'chat')
  ) {
    for (const f of PROMPT_FIELDS) stringsOf(call.body[f], out);
    return out;
  }
  const ir = call.format.requestToIR(call.body);
  out.push(...ir.system);
  for (const m of ir.messages) {
    for (const p of m.parts) {
      if (p.type === 'text') out.push(p.text);
      else if (p.type === 'tool_result') out.push(p.content);
    }
  }
  return out;
}

let compiled: { list: string; matcher: SensitiveMatcher | undefined } | undefined;

/**
 * The matcher of the current SensitiveWords, compiled again only when the option changed (patterns in the
 * linear-time engine: lib/safe-pattern.ts). A list the engine cannot run (stored before patterns were checked on
 * save, or imported) checks nothing, and says so once in the log.
 */
function matcherOf(options: OptionsService, log: Logger | undefined): SensitiveMatcher | undefined {
  const list = options.get('SensitiveWords');
  if (compiled?.list !== list) {
    const { matcher, refusal } = compileSensitiveWords(list);
    if (refusal)
      log?.error(
        { option: 'SensitiveWords', reason: refusal.message },
        'SensitiveWords cannot be used: prompts are not checked until it is saved again',
      );
    compiled = { list, matcher };
  }
  return compiled.matcher;
}

/**
 * With CheckSensitiveEnabled and CheckSensitiveOnPromptEnabled, a prompt containing an entry of SensitiveWords is
 * refused before any channel is chosen or quota reserved (400, code sensitive_words_detected, naming what matched).
 * Calls billed in the exempt group (global.safe_check_exempt_enabled / _group) are not checked.
 */
export function checkPrompt(
  options: OptionsService,
  settings: RelaySettings,
  call: InboundCall,
  group: string,
  log?: Logger,
): void {
  if (!settings.checkPrompt || group === settings.exemptGroup) return;
  const matcher = matcherOf(options, log);
  if (!matcher) return;
  const found: string[] = [];
  for (const text of promptTexts(call)) {
    for (const w of matcher.find(text)) if (!found.includes(w)) found.push(w);
    if (found.length >= 3) break;
  }
  if (found.length)
    throw new RelayError(
      400,
      `sensitive words detected: ${found.slice(0, 3).join(', ')}`,
      'invalid_request_error',
      'sensitive_words_detected',
    );
}
