import type { SseEvent } from '../../ir/sse.js';
import type { StreamFramer } from '../types.js';
import { EventStreamDecoder, type EventStreamMessage } from './event-stream.js';

/**
 * Bedrock's streamed answers (AWS event stream) → SSE-shaped events of the format the stream carries, for the
 * usual stream decoders. InvokeModelWithResponseStream: each `chunk` event's payload is
 * `{"bytes": base64(one Anthropic stream event JSON)}`. ConverseStream: the `:event-type` header names the
 * event and the payload is its JSON. Exceptions (`:message-type` exception or error) become an error event.
 */
export class BedrockStreamFramer implements StreamFramer {
  private decoder = new EventStreamDecoder();

  constructor(private readonly kind: 'invoke' | 'converse' = 'invoke') {}

  push(chunk: Buffer): SseEvent[] {
    const out: SseEvent[] = [];
    for (const m of this.decoder.push(chunk)) {
      const ev = this.toSse(m);
      if (ev) out.push(ev);
    }
    return out;
  }

  flush(): SseEvent[] {
    return this.decoder.partial ? [this.error('Bedrock event stream ended in the middle of a message')] : [];
  }

  /** Anthropic's error event for InvokeModel streams; Converse's own `exception` shape otherwise. */
  private error(message: string): SseEvent {
    if (this.kind === 'converse') return { event: 'exception', data: JSON.stringify({ message }) };
    return { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'api_error', message } }) };
  }

  private toSse(m: EventStreamMessage): SseEvent | undefined {
    const kind = String(m.headers[':message-type'] ?? 'event');
    if (kind === 'exception' || kind === 'error') {
      let message = m.payload.toString('utf8');
      try {
        message = (JSON.parse(message) as { message?: string }).message ?? message;
      } catch {
        // plain text
      }
      const type = String(m.headers[':exception-type'] ?? m.headers[':error-code'] ?? 'api_error');
      return this.error(`${type}: ${message || String(m.headers[':error-message'] ?? 'upstream error')}`);
    }
    const eventType = String(m.headers[':event-type'] ?? '');
    const payload = m.payload.toString('utf8');
    if (this.kind === 'converse') return eventType ? { event: eventType, data: payload } : undefined;
    if (eventType !== 'chunk') return undefined;
    let data: string;
    let type: string | undefined;
    try {
      const bytes = (JSON.parse(payload) as { bytes?: unknown }).bytes;
      if (typeof bytes !== 'string') return undefined;
      data = Buffer.from(bytes, 'base64').toString('utf8');
      type = (JSON.parse(data) as { type?: string }).type;
    } catch {
      return this.error('Bedrock sent a chunk that is not JSON');
    }
    return { event: type, data };
  }
}
