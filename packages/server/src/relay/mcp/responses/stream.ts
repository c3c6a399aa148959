import type { ServerResponse } from 'node:http';
import { startKeepAlive, type KeepAlive } from '../../pipeline/keep-alive.js';
import type { RelayError } from '../../pipeline/errors.js';
import type { McpCallItem } from './calls.js';
import type { ResponsesAnswer } from './round.js';
import type { McpListToolsItem } from './toolset.js';

type Item = Record<string, unknown>;

/** What the loop tells as it goes: each item when it starts and when it is done. */
export interface LoopEvents {
  listed(item: McpListToolsItem): void;
  calling(item: McpCallItem): void;
  called(item: McpCallItem): void;
  /** An item the model produced in a round that called tools (a message said on the way). */
  produced(item: Item): void;
}

const textOf = (item: Item): string =>
  ((item.content ?? []) as { type?: string; text?: string }[])
    .map((p) => (p.type === 'output_text' ? String(p.text ?? '') : ''))
    .join('');

/**
 * A Responses call with `mcp` tools answered as OpenAI streams it: `response.created`, then each output item as it
 * happens (`response.mcp_list_tools.*` while the tools are listed, `response.mcp_call_arguments.*` and
 * `response.mcp_call.*` around each tool call), then the last round's items, and `response.completed` (or
 * `response.incomplete`). The model rounds themselves run whole, so a message arrives as one text delta.
 */
export class ResponsesEventStream implements LoopEvents {
  private seq = 0;
  private index = 0;
  private readonly alive: KeepAlive | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly skeleton: Item,
    pingMs: number,
  ) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    this.alive = pingMs > 0 ? startKeepAlive(res, { intervalMs: pingMs }) : undefined;
    const response = { ...skeleton, status: 'in_progress', output: [] };
    this.send('response.created', { response });
    this.send('response.in_progress', { response });
  }

  private send(type: string, data: Item): void {
    if (this.res.destroyed || this.res.writableEnded) return;
    this.res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...data })}\n\n`);
    this.alive?.touch();
  }

  private added(item: Item): number {
    const output_index = this.index++;
    this.send('response.output_item.added', { output_index, item });
    return output_index;
  }

  private done(item: Item, output_index: number): void {
    this.send('response.output_item.done', { output_index, item });
  }

  listed(item: McpListToolsItem): void {
    const at = this.added({ ...item, tools: [] });
    const ids = { item_id: item.id, output_index: at };
    this.send('response.mcp_list_tools.in_progress', ids);
    this.send(item.error ? 'response.mcp_list_tools.failed' : 'response.mcp_list_tools.completed', ids);
    this.done(item as unknown as Item, at);
  }

  private callAt = new Map<string, number>();

  calling(item: McpCallItem): void {
    const at = this.added({ ...item, arguments: '', output: null, error: null, status: 'in_progress' });
    this.callAt.set(item.id, at);
    const ids = { item_id: item.id, output_index: at };
    this.send('response.mcp_call_arguments.delta', { ...ids, delta: item.arguments });
    this.send('response.mcp_call_arguments.done', { ...ids, arguments: item.arguments });
    this.send('response.mcp_call.in_progress', ids);
  }

  called(item: McpCallItem): void {
    const at = this.callAt.get(item.id) ?? this.index;
    this.callAt.delete(item.id);
    const ids = { item_id: item.id, output_index: at };
    this.send(item.status === 'completed' ? 'response.mcp_call.completed' : 'response.mcp_call.failed', ids);
    this.done(item as unknown as Item, at);
  }

  /** A model's output item, told whole: a message as one text delta, a function call's arguments as one delta. */
  produced(item: Item): void {
    const id = String(item.id ?? '');
    if (item.type === 'message') {
      const at = this.added({ ...item, status: 'in_progress', content: [] });
      const text = textOf(item);
      const part = { type: 'output_text', text: '', annotations: [] };
      const ids = { item_id: id, output_index: at, content_index: 0 };
      this.send('response.content_part.added', { ...ids, part });
      this.send('response.output_text.delta', { ...ids, delta: text, logprobs: [] });
      this.send('response.output_text.done', { ...ids, text, logprobs: [] });
      this.send('response.content_part.done', { ...ids, part: { ...part, text } });
      this.done(item, at);
      return;
    }
    if (item.type === 'function_call') {
      const at = this.added({ ...item, arguments: '', status: 'in_progress' });
      const args = String(item.arguments ?? '');
      this.send('response.function_call_arguments.delta', { item_id: id, output_index: at, delta: args });
      this.send('response.function_call_arguments.done', { item_id: id, output_index: at, arguments: args });
      this.done(item, at);
      return;
    }
    this.done(item, this.added(item));
  }

  /** The answer: the items not told yet, then the whole response. */
  finish(answer: ResponsesAnswer): void {
    const output = answer.output ?? [];
    for (const item of output.slice(this.index)) this.produced(item);
    const response = { ...answer, id: this.skeleton.id };
    this.send(answer.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
    this.end();
  }

  /** A refusal or failure once the stream is open: an `error` event, as OpenAI's streams end on one. */
  fail(err: RelayError): void {
    this.send('error', { code: err.code, message: err.message, param: err.param });
    this.end();
  }

  private end(): void {
    this.alive?.stop();
    if (!this.res.writableEnded) this.res.end();
  }
}
