import type { IRPart } from '../ir/types.js';

/** Every output text of a plain answer, uncapped: all of Gemini's candidates, else the IR's text, thinking and tool arguments. */
export function answerText(json: Record<string, unknown>, parts: IRPart[]): string {
  let text = '';
  const candidates = json.candidates;
  if (Array.isArray(candidates) && candidates.length > 1) {
    for (const c of candidates as { content?: { parts?: { text?: unknown; functionCall?: { args?: unknown } }[] } }[]) {
      for (const p of c?.content?.parts ?? [])
        text += typeof p?.text === 'string' ? p.text : p?.functionCall ? JSON.stringify(p.functionCall.args ?? {}) : '';
    }
    return text;
  }
  for (const p of parts)
    text += p.type === 'text' || p.type === 'thinking' ? p.text : p.type === 'tool_call' ? p.arguments : '';
  return text;
}
