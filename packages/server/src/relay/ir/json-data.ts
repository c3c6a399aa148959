/** A JSON object whose fields are not known yet (an upstream's or a caller's body before it is read). */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed JSON value is an object (not null, not an array). */
export const isRecord = (v: unknown): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);

/** Parses an SSE data payload as a JSON object; undefined when it is not one. */
export function parseData(data: string): Record<string, unknown> | undefined {
  try {
    const j = JSON.parse(data) as unknown;
    return j && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The text of an IR message's text parts, joined. */
export const joinedText = (parts: { type: string; text?: string }[]): string =>
  parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');
