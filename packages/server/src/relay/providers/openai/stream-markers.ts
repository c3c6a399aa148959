/**
 * What an OpenAI SSE event's data holds, found by substring: a usage object (`"usage":{`) and delta text a count or
 * the captured answer reads (`content":"`, which also finds reasoning_content, `"arguments":"`, `"text":"`).
 *
 * Each search looks for the marker from a letter that is rare in a chunk and checks the characters before it: a
 * substring search tries every place the pattern's first character occurs, and `"` occurs at every key and string
 * value of a chunk (≈ 30 places an event), so `data.includes('"usage":{')` cost ≈ 1,400 instructions where
 * `usage":{` then a check of the quote before it costs a fraction. The answers are the same as the plain searches'
 * (test/unit/openai-stream-markers.test.ts).
 */

const USAGE_TAIL = 'usage":{';
const CONTENT_MARKER = 'content":"';
const ARGUMENTS_TAIL = 'rguments":"';
const ARGUMENTS_HEAD = '"a';
const TEXT_TAIL = 'xt":"';
const TEXT_HEAD = '"te';
const QUOTE = 0x22;

/** Whether `data` holds `head + tail`: each `tail` found is checked for `head` right before it. */
function holdsSplit(data: string, head: string, tail: string): boolean {
  for (let at = data.indexOf(tail); at >= 0; at = data.indexOf(tail, at + 1))
    if (at >= head.length && data.startsWith(head, at - head.length)) return true;
  return false;
}

/** `data.includes('"usage":{')`. */
export function holdsUsageObject(data: string): boolean {
  for (let at = data.indexOf(USAGE_TAIL); at >= 0; at = data.indexOf(USAGE_TAIL, at + 1))
    if (at > 0 && data.charCodeAt(at - 1) === QUOTE) return true;
  return false;
}

/** `data.includes('content":"') || data.includes('"arguments":"') || data.includes('"text":"')`. */
export function holdsDeltaText(data: string): boolean {
  return (
    data.includes(CONTENT_MARKER) ||
    holdsSplit(data, ARGUMENTS_HEAD, ARGUMENTS_TAIL) ||
    holdsSplit(data, TEXT_HEAD, TEXT_TAIL)
  );
}
