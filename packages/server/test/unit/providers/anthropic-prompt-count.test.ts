import { encodeChat } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countPromptAsChat } from '../../../src/relay/providers/anthropic/prompt-count.js';
import type { AnthropicRequest } from '../../../src/relay/providers/anthropic/wire.js';

/** What OpenAI bills for the same conversation: gpt-tokenizer's chat template for gpt-4o, an independent count. */
const billed = (system: string | undefined, turns: { role: 'user' | 'assistant'; content: string }[]): number =>
  encodeChat([...(system ? [{ role: 'system' as const, content: system }] : []), ...turns], 'gpt-4o').length;

describe("an Anthropic prompt counted as an OpenAI upstream bills it (message_start's input_tokens)", () => {
  it('one message: the text, its framing and role, and the reply priming', () => {
    const turns = [{ role: 'user' as const, content: 'Hello!' }];
    const body = { model: 'm', max_tokens: 8, messages: turns } as AnthropicRequest;
    expect(countPromptAsChat(body)).toBe(billed(undefined, turns));
    expect(countPromptAsChat(body)).toBe(9);
  });

  it('a system prompt (string or blocks) and several turns, text blocks joined', () => {
    const turns = [
      { role: 'user' as const, content: 'My name is Ada.' },
      { role: 'assistant' as const, content: 'Nice to meet you, Ada.' },
      { role: 'user' as const, content: 'What is my name?' },
    ];
    const system = 'Answer in one short sentence.';
    expect(countPromptAsChat({ model: 'm', max_tokens: 8, system, messages: turns } as AnthropicRequest)).toBe(
      billed(system, turns),
    );
    const blocks = {
      model: 'm',
      max_tokens: 8,
      system: [{ type: 'text', text: system }],
      messages: turns.map((t) => ({ role: t.role, content: [{ type: 'text', text: t.content }] })),
    } as AnthropicRequest;
    expect(countPromptAsChat(blocks)).toBe(billed(system, turns));
  });
});
