/** One server-sent event: its `event:` name (if any) and its joined `data:` lines. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Splits an SSE byte stream (already decoded to text) into whole events, carrying a partial event across
 * chunks. Accepts \n\n and \r\n\r\n separators.
 */
export class SseSplitter {
  private buffer = '';

  push(chunk: string): SseEvent[] {
    this.buffer += chunk.includes('\r') ? chunk.replace(/\r\n/g, '\n') : chunk;
    const out: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const end = this.buffer.indexOf('\n\n', start);
      if (end < 0) break;
      const ev = parseEvent(this.buffer.slice(start, end));
      if (ev) out.push(ev);
      start = end + 2;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** What is left when the stream ends (an event without its final blank line). */
  flush(): SseEvent[] {
    const rest = this.buffer.trim();
    this.buffer = '';
    const ev = rest ? parseEvent(rest) : undefined;
    return ev ? [ev] : [];
  }
}

function parseEvent(block: string): SseEvent | undefined {
  // The common event is one `data:` line; it needs no splitting.
  if (block.startsWith('data:') && !block.includes('\n'))
    return { event: undefined, data: block.slice(block[5] === ' ' ? 6 : 5) };
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  if (data.length === 0 && event === undefined) return undefined;
  return { event, data: data.join('\n') };
}

/** Formats one SSE event. */
export const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
