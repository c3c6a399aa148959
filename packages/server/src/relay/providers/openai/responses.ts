import { responsesToolCalls, withToolCalls } from '../../ir/tool-calls.js';
import { imageFromUrl, imageToUrl } from './chat.js';
import {
  decodeEvent,
  encodeEvent,
  newDecodeState,
  newEncodeState,
  type DecodeState,
  type EncodeState,
} from './responses-stream.js';
import {
  functionCallItem,
  itemId,
  messageItem,
  outputText,
  reasoningItem,
  responseId,
  responseObject,
  statusOf,
  stopToIR,
  usageToIR,
} from './responses-object.js';
import { reasoningEffortOf } from './reasoning.js';
import type { IRMessage, IRPart, IRRequest, IRTool, IRToolChoice, WireFormat } from '../../ir/types.js';
import type {
  ResponsesContentPart,
  ResponsesFunctionCallItem,
  ResponsesFunctionCallOutputItem,
  ResponsesInputItem,
  ResponsesMessageItem,
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesOutputReasoning,
  ResponsesReasoningItem,
  ResponsesRequest,
  ResponsesResponse,
  ResponsesSummaryText,
  ResponsesToolChoice,
} from './wire.js';

/** Message content: text, or a list of content parts. */
type Content = string | ResponsesContentPart[] | null | undefined;

/**
 * The IR has no file reference: an `input_image` given by `file_id` travels as an image URL with this scheme,
 * which requestFromIR turns back into `file_id`. Other formats forward it as a URL their upstream will reject.
 */
const FILE_SCHEME = 'openai-file://';

const textOf = (content: Content): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .map((p) =>
            p?.type === 'input_text' || p?.type === 'output_text' || p?.type === 'text' ? String(p.text ?? '') : '',
          )
          .join('')
      : '';

function partsOf(content: Content): IRPart[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  const out: IRPart[] = [];
  for (const p of content) {
    if (p?.type === 'input_text' || p?.type === 'output_text' || p?.type === 'text')
      out.push({ type: 'text', text: String(p.text ?? '') });
    else if (p?.type === 'refusal') out.push({ type: 'text', text: String(p.refusal ?? '') });
    else if (p?.type === 'input_image') {
      if (p.image_url) out.push(imageFromUrl(String(p.image_url)));
      else if (p.file_id) out.push({ type: 'image', url: FILE_SCHEME + String(p.file_id) });
    } else if (p?.type === 'input_audio')
      out.push({
        type: 'audio',
        data: String(p.input_audio?.data ?? ''),
        format: String(p.input_audio?.format ?? 'wav'),
      });
    // input_file has no IR form.
  }
  return out;
}

/** Reasoning item → thinking text: its summary paragraphs, or its raw reasoning text when there is no summary. */
const reasoningText = (item: {
  summary?: ResponsesSummaryText[];
  content?: ResponsesReasoningItem['content'];
}): string => {
  const summary = (item.summary ?? []).map((s) => String(s?.text ?? '')).filter(Boolean);
  return (summary.length ? summary : (item.content ?? []).map((c) => String(c?.text ?? ''))).join('\n\n');
};

/** function_call_output.output: a string, or (newer API) a list of input content parts. */
const outputOf = (output: ResponsesFunctionCallOutputItem['output'] | undefined): string =>
  typeof output === 'string' ? output : Array.isArray(output) ? textOf(output) : JSON.stringify(output ?? '');

function inputToIR(input: ResponsesRequest['input'], system: string[]): IRMessage[] {
  if (typeof input === 'string') return input ? [{ role: 'user', parts: [{ type: 'text', text: input }] }] : [];
  if (!Array.isArray(input)) return [];
  const out: IRMessage[] = [];
  const names = new Map<string, string>();
  /** Reasoning, assistant messages and function calls of one turn share one assistant message. */
  const assistant = (): IRPart[] => {
    const last = out[out.length - 1];
    if (last?.role === 'assistant') return last.parts;
    const m: IRMessage = { role: 'assistant', parts: [] };
    out.push(m);
    return m.parts;
  };
  for (const entry of input) {
    const type = entry?.type ?? ((entry as ResponsesMessageItem | undefined)?.role ? 'message' : undefined);
    if (type === 'message') {
      const item = entry as ResponsesMessageItem;
      if (item.role === 'system' || item.role === 'developer') system.push(textOf(item.content));
      else if (item.role === 'assistant') assistant().push(...partsOf(item.content));
      else out.push({ role: 'user', parts: partsOf(item.content) });
    } else if (type === 'function_call') {
      const item = entry as ResponsesFunctionCallItem;
      names.set(String(item.call_id ?? ''), String(item.name ?? ''));
      assistant().push({
        type: 'tool_call',
        id: String(item.call_id ?? ''),
        name: String(item.name ?? ''),
        arguments: String(item.arguments ?? '{}'),
      });
    } else if (type === 'function_call_output') {
      const item = entry as ResponsesFunctionCallOutputItem;
      const toolCallId = String(item.call_id ?? '');
      const name = names.get(toolCallId);
      out.push({
        role: 'tool',
        parts: [{ type: 'tool_result', toolCallId, ...(name ? { name } : {}), content: outputOf(item.output) }],
      });
    } else if (type === 'reasoning') {
      const text = reasoningText(entry as ResponsesReasoningItem);
      if (text) assistant().push({ type: 'thinking', text });
    }
    // Built-in tool calls and their outputs, item references: no IR form.
  }
  return out;
}

function contentFromParts(parts: IRPart[]): string | ResponsesContentPart[] {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as { text: string }).text).join('');
  return parts.flatMap((p): ResponsesContentPart[] => {
    if (p.type === 'text') return [{ type: 'input_text', text: p.text }];
    if (p.type === 'image')
      return [
        p.url?.startsWith(FILE_SCHEME)
          ? { type: 'input_image', detail: 'auto', file_id: p.url.slice(FILE_SCHEME.length) }
          : { type: 'input_image', detail: 'auto', image_url: imageToUrl(p) },
      ];
    if (p.type === 'audio') return [{ type: 'input_audio', input_audio: { data: p.data, format: p.format } }];
    return [];
  });
}

function inputFromIR(messages: IRMessage[]): ResponsesInputItem[] {
  const out: ResponsesInputItem[] = [];
  for (const m of messages) {
    if (m.role === 'tool' || m.parts.some((p) => p.type === 'tool_result')) {
      for (const p of m.parts)
        if (p.type === 'tool_result')
          out.push({ type: 'function_call_output', call_id: p.toolCallId, output: p.content });
      const rest = m.parts.filter((p) => p.type !== 'tool_result');
      if (rest.length) out.push({ role: 'user', content: contentFromParts(rest) });
      continue;
    }
    if (m.role === 'assistant') {
      // Thinking is dropped: a Responses upstream accepts only reasoning items it issued itself (id, encrypted_content).
      let text: string | undefined;
      const flush = () => {
        if (text !== undefined) out.push({ role: 'assistant', content: text });
        text = undefined;
      };
      for (const p of m.parts) {
        if (p.type === 'text') text = (text ?? '') + p.text;
        else if (p.type === 'tool_call') {
          flush();
          out.push({ type: 'function_call', call_id: p.id, name: p.name, arguments: p.arguments });
        }
      }
      flush();
      continue;
    }
    out.push({ role: 'user', content: contentFromParts(m.parts) });
  }
  return out;
}

const efforts = new Set(['minimal', 'low', 'medium', 'high']);

function toolChoiceToIR(tc: ResponsesToolChoice | undefined): IRToolChoice | undefined {
  if (tc === 'auto' || tc === 'none' || tc === 'required') return tc;
  if (typeof tc === 'object' && tc?.type === 'function') return { name: String(tc.name ?? '') };
  return undefined; // allowed_tools, hosted-tool and MCP choices have no IR form
}

/** OpenAI Responses (`POST /v1/responses`). */
export const openAIResponses: WireFormat<DecodeState, EncodeState> = {
  name: 'responses',
  requestToIR(body) {
    const b = body as ResponsesRequest;
    const system: string[] = typeof b.instructions === 'string' && b.instructions ? [b.instructions] : [];
    const messages = inputToIR(b.input, system);
    // Only function tools convert; built-in tools (web_search, file_search, computer_use, mcp…) are dropped.
    const tools: IRTool[] | undefined = Array.isArray(b.tools)
      ? b.tools
          .filter((t) => t?.type === 'function')
          .map((t) => ({
            name: String(t.name ?? ''),
            ...(t.description ? { description: String(t.description) } : {}),
            parameters: t.parameters ?? { type: 'object', properties: {} },
          }))
      : undefined;
    const format = b.text?.format;
    const effort = b.reasoning?.effort;
    return {
      model: String(b.model ?? ''),
      system,
      messages,
      tools: tools?.length ? tools : undefined,
      toolChoice: toolChoiceToIR(b.tool_choice),
      parallelToolCalls: b.parallel_tool_calls ?? undefined,
      maxTokens: b.max_output_tokens ?? undefined,
      temperature: b.temperature ?? undefined,
      topP: b.top_p ?? undefined,
      stream: b.stream === true,
      reasoning: effort !== undefined && efforts.has(effort) ? { effort } : undefined,
      responseFormat:
        format?.type === 'json_schema'
          ? {
              type: 'json_schema',
              name: String(format.name ?? 'output'),
              schema: format.schema ?? {},
              ...(format.strict != null ? { strict: Boolean(format.strict) } : {}),
            }
          : format?.type === 'json_object'
            ? { type: 'json_object' }
            : undefined,
      user: b.user ?? undefined,
      serviceTier: typeof b.service_tier === 'string' ? b.service_tier : undefined,
      safetyIdentifier: typeof b.safety_identifier === 'string' ? b.safety_identifier : undefined,
    };
  },
  requestFromIR(ir: IRRequest) {
    const body: ResponsesRequest = { model: ir.model };
    if (ir.system.length) body.instructions = ir.system.join('\n\n');
    body.input = inputFromIR(ir.messages);
    if (ir.stream) body.stream = true;
    if (ir.maxTokens !== undefined) body.max_output_tokens = ir.maxTokens;
    if (ir.temperature !== undefined) body.temperature = ir.temperature;
    if (ir.topP !== undefined) body.top_p = ir.topP;
    // Responses defaults function tools to strict; IR schemas come from clients that never asked for it.
    if (ir.tools?.length)
      body.tools = ir.tools.map((t) => ({
        type: 'function' as const,
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.parameters,
        strict: false,
      }));
    if (ir.toolChoice)
      body.tool_choice =
        typeof ir.toolChoice === 'string' ? ir.toolChoice : { type: 'function', name: ir.toolChoice.name };
    if (ir.parallelToolCalls !== undefined) body.parallel_tool_calls = ir.parallelToolCalls;
    const effort = reasoningEffortOf(ir.reasoning);
    if (effort) body.reasoning = { effort };
    if (ir.responseFormat)
      body.text = {
        format:
          ir.responseFormat.type === 'json_object'
            ? { type: 'json_object' }
            : {
                type: 'json_schema',
                name: ir.responseFormat.name,
                schema: ir.responseFormat.schema,
                ...(ir.responseFormat.strict !== undefined ? { strict: ir.responseFormat.strict } : {}),
              },
      };
    if (ir.user) body.user = ir.user;
    if (ir.serviceTier) body.service_tier = ir.serviceTier;
    if (ir.safetyIdentifier) body.safety_identifier = ir.safetyIdentifier;
    // The IR is stateless: nothing should be kept upstream under a response id the client never sees.
    body.store = false;
    return body;
  },
  responseToIR(body) {
    const b = body as ResponsesResponse;
    const parts: IRPart[] = [];
    for (const item of b.output ?? []) {
      if (item?.type === 'reasoning') {
        const text = reasoningText(item);
        if (text) parts.push({ type: 'thinking', text });
      } else if (item?.type === 'message') parts.push(...partsOf(item.content));
      else if (item?.type === 'function_call')
        parts.push({
          type: 'tool_call',
          id: String(item.call_id ?? ''),
          name: String(item.name ?? ''),
          arguments: String(item.arguments ?? '{}'),
        });
    }
    return {
      id: String(b.id ?? ''),
      model: String(b.model ?? ''),
      parts,
      stopReason: stopToIR(b),
      usage: withToolCalls(usageToIR(b.usage), responsesToolCalls(b.output)),
    };
  },
  responseFromIR(ir, model) {
    const id = responseId(ir.id);
    const status = statusOf(ir.stopReason);
    const itemState = status === 'incomplete' ? 'incomplete' : 'completed';
    const output: ResponsesOutputItem[] = [];
    let last: string | undefined;
    for (const p of ir.parts) {
      if (p.type === 'thinking') {
        if (p.redacted || !p.text) continue;
        if (last === 'thinking')
          (output[output.length - 1] as ResponsesOutputReasoning).summary.push({ type: 'summary_text', text: p.text });
        else output.push(reasoningItem(itemId('rs', id, output.length), [p.text]));
      } else if (p.type === 'text') {
        if (last === 'text') (output[output.length - 1] as ResponsesOutputMessage).content.push(outputText(p.text));
        else output.push(messageItem(itemId('msg', id, output.length), [p.text], itemState));
      } else if (p.type === 'tool_call')
        output.push(functionCallItem(itemId('fc', id, output.length), p.id, p.name, p.arguments, 'completed'));
      else continue;
      last = p.type;
    }
    return responseObject({
      id,
      model,
      createdAt: Math.floor(Date.now() / 1000),
      output,
      status,
      reason: ir.stopReason,
      usage: ir.usage,
      error: 'The upstream model stopped with an error.',
    });
  },
  newDecodeState,
  decodeEvent,
  newEncodeState,
  encodeEvent,
  errorBody: (_status, message, type = 'tollway_error') => ({ error: { message, type, param: null, code: null } }),
};
