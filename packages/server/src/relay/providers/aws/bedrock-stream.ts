import type { SseEvent } from '../../ir/sse.js';
import type { StreamFramer } from '../types.js';
import { EventStreamDecoder, type EventStreamMessage } from './event-stream.js';

/**
 * Bedrock InvokeModelWithResponseStream → the Anthropic SSE events it carries: each `chunk` event's payload is
 * `{"bytes": base64(one Anthropic stream event JSON)}`; exceptions (`:message-type` exception or error) become
 * an Anthropic `error` event. The events then go through the Anthropic stream decoder like any SSE.
 */
export class BedrockStreamFramer implements StreamFramer {
  private decoder = new EventStreamDecoder();

  push(chunk: Buffer): SseEvent[] {
    const out: SseEvent[] = [];
    for (const m of this.decoder.push(chunk)) {
      const ev = toSse(m);
      if (ev) out.push(ev);
    }
    return out;
  }

  flush(): SseEvent[] {
    return this.decoder.partial ? [errorEvent('Bedrock event stream ended in the middle of a message')] : [];
  }
}

const errorEvent = (message: string, type = 'api_error'): SseEvent => ({ event: 'error', data: JSON.stringify({ type: 'error', error: { type, message } }) });

function toSse(m: EventStreamMessage): SseEvent | undefined {
  const kind = String(m.headers[':message-type'] ?? 'event');
  if (kind === 'exception' || kind === 'error') {
    let message = m.payload.toString('utf8');
    try {
      message = (JSON.parse(message) as { message?: string }).message ?? message;
    } catch {
      // plain text
    }
    const type = String(m.headers[':exception-type'] ?? m.headers[':error-code'] ?? 'api_error');
    return errorEvent(`${type}: ${message || String(m.headers[':error-message'] ?? 'upstream error')}`);
  }
  if (m.headers[':event-type'] !== 'chunk') return undefined;
  let bytes: string | undefined;
  try {
    bytes = (JSON.parse(m.payload.toString('utf8')) as { bytes?: string }).bytes;
  } catch {
    return errorEvent('Bedrock sent a chunk that is not JSON');
  }
  if (typeof bytes !== 'string') return undefined;
  const data = Buffer.from(bytes, 'base64').toString('utf8');
  let type: string | undefined;
  try {
    type = (JSON.parse(data) as { type?: string }).type;
  } catch {
    return errorEvent('Bedrock sent a chunk whose bytes are not JSON');
  }
  return { event: type, data };
}
