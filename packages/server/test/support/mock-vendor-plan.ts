import { sampleFromSchema } from './schema-sample.js';

export type Vendor = 'openai' | 'anthropic' | 'gemini';

/** Usage every mock vendor answer reports. */
export const MOCK_INPUT_TOKENS = 11;
export const MOCK_OUTPUT_TOKENS = 7;
/** The vector of every embedding input (base64: these as Float32 little-endian). */
export const MOCK_EMBEDDING = [0.5, -0.25, 0.125];
/** Text of a json_object request (no schema). */
export const JSON_OBJECT_TEXT = '{"ok":true}';
/** The word in the last user text that asks for two tool calls. */
export const PARALLEL_WORD = 'parallel';
/** The word in the last user text that makes the mock call a tool again after every tool result (a model that never stops). */
export const REPEAT_WORD = 'repeatedly';
/** How many pieces streamed JSON (tool arguments, structured text) is cut into. */
const JSON_PIECES = 3;

export interface ToolDef {
  name: string;
  schema: unknown;
}

/** What the mock reads from a request, whatever the vendor. */
export interface Turn {
  tools: ToolDef[];
  /** A tool the request forces, or 'none' when tools must not be called. */
  forcedTool?: string;
  noTools?: boolean;
  /** Contents of the tool results the last turn carries (null: the last turn is not a tool result). */
  toolResults: string[] | null;
  lastUserText: string;
  image?: { mediaType: string; bytes: number } | { url: string };
  /** A structured-output schema, or 'json_object' for JSON without one. */
  schema?: unknown;
}

export interface PlannedCall {
  name: string;
  args: unknown;
}

export type Answer = { kind: 'tools'; calls: PlannedCall[] } | { kind: 'text'; pieces: string[] };

/** Splits a string into `count` pieces of near-equal length (fewer when it is short). */
export function splitPieces(text: string, count = JSON_PIECES): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

function toolCalls(turn: Turn): PlannedCall[] {
  // A forced tool the request does not offer is called all the same (a model that calls what it was not given).
  const forced = turn.forcedTool
    ? (turn.tools.find((t) => t.name === turn.forcedTool) ?? { name: turn.forcedTool, schema: { type: 'object' } })
    : undefined;
  const first = forced ?? turn.tools[0]!;
  const call = (t: ToolDef): PlannedCall => ({ name: t.name, args: sampleFromSchema(t.schema) });
  if (forced || !new RegExp(`\\b${PARALLEL_WORD}\\b`, 'i').test(turn.lastUserText)) return [call(first)];
  const second = turn.tools[1] ?? first;
  return [call(first), call(second)];
}

/**
 * The deterministic answer: a tool call when tools are offered (two when the user says "parallel"; again after
 * each tool turn when the user says "repeatedly"), the tool's result echoed after a tool turn, JSON from a requested schema, an image's size, else "Hello from <vendor>".
 */
export function planAnswer(turn: Turn, vendor: Vendor): Answer {
  const again = turn.toolResults !== null && new RegExp(`\\b${REPEAT_WORD}\\b`, 'i').test(turn.lastUserText);
  if (turn.tools.length && !turn.noTools && (turn.toolResults === null || again))
    return { kind: 'tools', calls: toolCalls(turn) };
  if (turn.toolResults !== null) return { kind: 'text', pieces: ['Tool said: ', turn.toolResults.join('; ')] };
  if (turn.schema !== undefined) {
    const text = turn.schema === 'json_object' ? JSON_OBJECT_TEXT : JSON.stringify(sampleFromSchema(turn.schema));
    return { kind: 'text', pieces: splitPieces(text) };
  }
  if (turn.image) {
    const text =
      'url' in turn.image ? `Image: url ${turn.image.url}` : `Image: ${turn.image.mediaType} ${turn.image.bytes} bytes`;
    return { kind: 'text', pieces: [text] };
  }
  return { kind: 'text', pieces: ['Hello', ' from', ` ${vendor}`] };
}

/** Bytes of base64 data. */
export function base64Bytes(data: string): number {
  return Buffer.from(data, 'base64').length;
}

/** A data URL's media type and byte count, or the URL itself. */
export function imageOfUrl(url: string): NonNullable<Turn['image']> {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1]!, bytes: base64Bytes(m[2]!) } : { url };
}

/** Text of a content that is a string or a list of text parts (`{type:'text'|'input_text'|'output_text', text}`). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) =>
        p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
          ? (p as { text: string }).text
          : '',
      )
      .join('');
  if (content === undefined || content === null) return '';
  return JSON.stringify(content);
}

/** The model asked for, as `mock-error-<status>`: that status. */
export function errorStatusOf(model: string): number | undefined {
  const m = /^mock-error-(\d{3})$/.exec(model);
  return m ? Number(m[1]) : undefined;
}
