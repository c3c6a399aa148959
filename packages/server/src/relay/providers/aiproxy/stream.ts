import { StringDecoder } from 'node:string_decoder';
import type { SseEvent } from '../../ir/sse.js';
import type { StreamFramer } from '../types.js';

/**
 * The library's stream, line by line: every `data:` line is one chunk, whether or not a blank line follows it
 * (the API's chunks are single JSON lines; readers of it split on newlines).
 */
export class DataLineFramer implements StreamFramer {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';

  push(chunk: Buffer): SseEvent[] {
    this.buffer += this.decoder.write(chunk);
    const cut = this.buffer.lastIndexOf('\n');
    if (cut < 0) return [];
    const lines = this.buffer.slice(0, cut);
    this.buffer = this.buffer.slice(cut + 1);
    return eventsOf(lines);
  }

  flush(): SseEvent[] {
    const rest = this.buffer + this.decoder.end();
    this.buffer = '';
    return eventsOf(rest);
  }
}

function eventsOf(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('data:')) out.push({ data: line.slice(line[5] === ' ' ? 6 : 5) });
  }
  return out;
}
