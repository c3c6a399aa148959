import type { IRRequest } from '../ir/types.js';

/** One turn of a text-only chat API (ERNIE v1, ChatGLM v3, Spark, the AI Proxy library). */
export interface PlainTurn {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * A call's conversation as the text turns the older vendor chat APIs take: each message's text (a tool result
 * as the user's text, a tool call as the assistant's JSON), images and thinking left out; the system prompts
 * joined. Turns of one role in a row are merged, since these APIs want user and assistant to alternate.
 */
export function plainConversation(ir: IRRequest): { system: string; turns: PlainTurn[] } {
  const turns: PlainTurn[] = [];
  for (const m of ir.messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const content = m.parts
      .map((p) =>
        p.type === 'text'
          ? p.text
          : p.type === 'tool_result'
            ? p.content
            : p.type === 'tool_call'
              ? JSON.stringify({ name: p.name, arguments: p.arguments })
              : '',
      )
      .join('');
    const last = turns.at(-1);
    if (last?.role === role) last.content += `\n\n${content}`;
    else turns.push({ role, content });
  }
  return { system: ir.system.join('\n\n'), turns };
}
