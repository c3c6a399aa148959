import { StringDecoder } from 'node:string_decoder';
import { SseSplitter } from './sse.js';
import { emptyUsage, type IRPart, type IRResponse, type IRStreamEvent, type UpstreamFormat } from './types.js';

/**
 * Collects a stream's IR events into one answer, for upstreams that only answer in full when streaming
 * (Coze) while the client asked for a plain answer. Text and thinking pieces are joined; tool calls are
 * assembled by index.
 */
export class StreamCollector {
  private readonly response: IRResponse = { id: '', model: '', parts: [], stopReason: 'stop', usage: emptyUsage() };
  private readonly calls = new Map<number, Extract<IRPart, { type: 'tool_call' }>>();
  /** The upstream reported usage. */
  sawUsage = false;
  error: string | undefined;

  push(e: IRStreamEvent): void {
    const r = this.response;
    const last = r.parts.at(-1);
    switch (e.type) {
      case 'start':
        r.id = e.id;
        r.model = e.model;
        break;
      case 'text':
      case 'thinking':
        if (last?.type === e.type) last.text += e.text;
        else r.parts.push({ type: e.type, text: e.text });
        break;
      case 'tool_call_start': {
        const call = { type: 'tool_call' as const, id: e.id, name: e.name, arguments: '' };
        this.calls.set(e.index, call);
        r.parts.push(call);
        break;
      }
      case 'tool_call_args': {
        const call = this.calls.get(e.index);
        if (call) call.arguments += e.args;
        break;
      }
      case 'stop':
        r.stopReason = e.reason;
        break;
      case 'usage':
        r.usage = e.usage;
        this.sawUsage = true;
        break;
      case 'error':
        this.error = e.message;
        break;
    }
  }

  result(): IRResponse {
    for (const c of this.calls.values()) if (!c.arguments) c.arguments = '{}';
    return this.response;
  }
}

/** What a collected stream gave: the answer, an error event's message, whether usage came, the first bytes (for errors). */
export interface Collected {
  response: IRResponse;
  error: string | undefined;
  sawUsage: boolean;
  head: string;
}

/** Bytes of a collected stream's start kept for the error report. */
const HEAD_LIMIT = 2000;

/** A streamed SSE answer decoded chunk by chunk through a format into one IR answer. */
export class SseCollect {
  private readonly decoder = new StringDecoder('utf8');
  private readonly splitter = new SseSplitter();
  private readonly collector = new StreamCollector();
  private readonly state: unknown;
  private head = '';

  constructor(private readonly format: UpstreamFormat) {
    this.state = format.newDecodeState();
  }

  push(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (this.head.length < HEAD_LIMIT) this.head += text;
    for (const ev of this.splitter.push(text))
      for (const e of this.format.decodeEvent(this.state, ev)) this.collector.push(e);
  }

  end(): Collected {
    const { format, state, collector } = this;
    for (const ev of this.splitter.flush()) for (const e of format.decodeEvent(state, ev)) collector.push(e);
    // Formats whose stream has no terminator (Gemini) report the stop reason and usage when it ends.
    if (format.finish) for (const e of format.finish(state)) collector.push(e);
    return {
      response: collector.result(),
      error: collector.error,
      sawUsage: collector.sawUsage,
      head: this.head.slice(0, HEAD_LIMIT),
    };
  }
}

/** Reads a whole SSE answer through a format's decoder into one IR answer. */
export async function collectStream(body: AsyncIterable<Buffer | string>, format: UpstreamFormat): Promise<Collected> {
  const collect = new SseCollect(format);
  for await (const chunk of body) collect.push(chunk);
  return collect.end();
}
