import { countTextTokens } from '../../pipeline/token-count.js';
import type { AnthropicBlock, AnthropicRequest } from './wire.js';

/**
 * The prompt of an Anthropic request counted as an OpenAI-format upstream bills it, for message_start when the
 * upstream has not reported its usage yet (an OpenAI chat stream reports it only in its last chunk).
 *
 * Why count rather than hold message_start: holding it until the upstream's usage is known would hold the whole
 * answer (OpenAI's usage comes after the last token), so the first byte would wait for the last. Counting costs
 * no wait, and counted as the chat template frames it, the number is the one billed: OpenAI's token-counting
 * guide gives each message 3 tokens of framing plus its role's (1), and 3 more priming the reply. The text alone
 * (what was sent before) fell short by exactly that framing (2 for `Hello!`, which OpenAI bills as 9), and clients that
 * read usage only from message_start (LangChain's ChatAnthropic) reported the shortfall. The upstream's own count
 * still wins wherever it came first (Anthropic and Gemini upstreams report the prompt on their first event).
 */
const PER_MESSAGE_TOKENS = 3;
const ROLE_TOKENS = 1;
const REPLY_PRIMING_TOKENS = 3;

const textOfBlocks = (content: string | AnthropicBlock[] | null | undefined): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const b of content) if (b?.type === 'text') text += String(b.text ?? '');
  return text;
};

/** A message's text as the model reads it: its text blocks, tool calls and tool results, one per line. */
function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content as AnthropicBlock[]) {
    if (b?.type === 'text') parts.push(String(b.text ?? ''));
    else if (b?.type === 'tool_use') parts.push(`${String(b.name ?? '')}${JSON.stringify(b.input ?? {})}`);
    else if (b?.type === 'tool_result') parts.push(textOfBlocks(b.content as AnthropicBlock[] | string));
  }
  return parts.join('\n');
}

const framed = (text: string): number => PER_MESSAGE_TOKENS + ROLE_TOKENS + countTextTokens(text);

/** Prompt tokens of an Anthropic request as a chat upstream counts them: system and messages framed, tools as JSON. */
export function countPromptAsChat(body: AnthropicRequest): number {
  const system = textOfBlocks(body.system as string | AnthropicBlock[] | undefined);
  let n = REPLY_PRIMING_TOKENS + (system ? framed(system) : 0);
  for (const m of Array.isArray(body.messages) ? body.messages : []) n += framed(messageText(m?.content));
  if (Array.isArray(body.tools) && body.tools.length) n += countTextTokens(JSON.stringify(body.tools));
  return n;
}
