import { StringDecoder } from 'node:string_decoder';
import type { SseEvent } from '../../ir/sse.js';
import type { StreamFramer } from '../types.js';
import type { ChatGLMFramedEvent } from './wire.js';

/**
 * Splits ChatGLM v3's `sse-invoke` stream into events. Its data lines are raw text (a multi-line piece is several
 * `data:` lines) and its `finish` event carries the usage on a `meta:` line, which plain SSE parsing drops: each
 * event is handed on with its name and `{data, meta}` as JSON.
 */
export class ChatGLMFramer implements StreamFramer {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';

  push(chunk: Buffer): SseEvent[] {
    const text = this.decoder.write(chunk);
    this.buffer += text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    const out: SseEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const ev = eventOf(this.buffer.slice(0, end));
      if (ev) out.push(ev);
      this.buffer = this.buffer.slice(end + 2);
    }
    return out;
  }

  flush(): SseEvent[] {
    const rest = this.buffer + this.decoder.end();
    this.buffer = '';
    const ev = rest.trim() ? eventOf(rest) : undefined;
    return ev ? [ev] : [];
  }
}

function eventOf(block: string): SseEvent | undefined {
  let event: string | undefined;
  let meta: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    // The text is taken as it comes after `data:` (Zhipu puts no space there; a space is part of the text).
    if (line.startsWith('data:')) data.push(line.slice(5));
    else if (line.startsWith('meta:')) meta = line.slice(5).trim();
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  if (event === undefined && data.length === 0 && meta === undefined) return undefined;
  const framed: ChatGLMFramedEvent = { data: data.join('\n'), ...(meta !== undefined ? { meta } : {}) };
  return { event: event ?? 'add', data: JSON.stringify(framed) };
}
