import type http from 'node:http';
import { hasUpperCaseTypes } from './schema-sample.js';
import { MOCK_CREATED, openSse, sendJson } from './mock-vendor-wire.js';
import {
  MOCK_INPUT_TOKENS,
  MOCK_OUTPUT_TOKENS,
  base64Bytes,
  planAnswer,
  splitPieces,
  textOf,
  type Answer,
  type Turn,
} from './mock-vendor-plan.js';

type Body = Record<string, unknown>;
type Block = {
  type?: string;
  text?: string;
  content?: unknown;
  source?: { type?: string; media_type?: string; data?: string; url?: string };
};
type Message = { role?: string; content?: unknown };

/** Models the Anthropic mock lists; the haiku has no native structured output (output_config.format is a 400). */
export const ANTHROPIC_MODELS = ['claude-sonnet-4-5', 'claude-3-5-haiku-20241022'];
export const NO_STRUCTURED_OUTPUT_MODELS = ['claude-3-5-haiku-20241022'];
const MESSAGE_ID = 'msg_mock';
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** The Anthropic tool-use id of the i-th call of an answer. */
export const anthropicToolId = (i: number) => `toolu_${i + 1}`;

/** An error in Anthropic's shape. */
export function anthropicError(res: http.ServerResponse, status: number, message: string): void {
  sendJson(
    res,
    status,
    { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message }, request_id: 'req_mock' },
    { 'request-id': 'req_mock' },
  );
}

/** The structured-output schema of output_config.format (or the beta output_format). */
function formatOf(body: Body): { schema: unknown } | undefined {
  const format = ((body.output_config as { format?: unknown } | undefined)?.format ?? body.output_format) as
    { type?: string; schema?: unknown } | undefined;
  return format?.type === 'json_schema' ? { schema: format.schema ?? {} } : undefined;
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function messagesTurn(body: Body): Turn {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
  const tools = (
    (Array.isArray(body.tools) ? body.tools : []) as { name?: string; input_schema?: unknown; type?: string }[]
  )
    .filter((t) => t.type === undefined || t.type === 'custom')
    .map((t) => ({ name: String(t.name ?? ''), schema: t.input_schema ?? {} }));
  const choice = body.tool_choice as { type?: string; name?: string } | undefined;
  const last = messages.at(-1);
  const lastBlocks = last?.role === 'user' ? blocksOf(last.content) : [];
  const results = lastBlocks.filter((b) => b.type === 'tool_result').map((b) => textOf(b.content));
  const lastUser = [...messages]
    .reverse()
    .find((m) => m.role === 'user' && blocksOf(m.content).some((b) => b.type === 'text'));
  const image = lastBlocks.find((b) => b.type === 'image')?.source;
  const format = formatOf(body);
  return {
    tools,
    forcedTool: choice?.type === 'tool' ? choice.name : undefined,
    noTools: choice?.type === 'none',
    toolResults: results.length ? results : null,
    lastUserText: blocksOf(lastUser?.content)
      .map((b) => (b.type === 'text' ? (b.text ?? '') : ''))
      .join(''),
    image: image
      ? image.type === 'url'
        ? { url: String(image.url) }
        : { mediaType: String(image.media_type), bytes: base64Bytes(String(image.data ?? '')) }
      : undefined,
    schema: format?.schema,
  };
}

const usage = (output: number) => ({
  input_tokens: MOCK_INPUT_TOKENS,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: output,
  service_tier: 'standard',
});

function contentOf(answer: Answer): Record<string, unknown>[] {
  if (answer.kind === 'text') return [{ type: 'text', text: answer.pieces.join('') }];
  return answer.calls.map((c, i) => ({ type: 'tool_use', id: anthropicToolId(i), name: c.name, input: c.args }));
}

function streamMessage(res: http.ServerResponse, model: string, answer: Answer): void {
  const sse = openSse(res);
  const send = (type: string, data: Record<string, unknown>) => sse.send({ type, ...data }, type);
  send('message_start', {
    message: {
      id: MESSAGE_ID,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(1),
    },
  });
  send('ping', {});
  if (answer.kind === 'text') {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const text of answer.pieces) send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
    send('content_block_stop', { index: 0 });
  } else {
    answer.calls.forEach((call, index) => {
      // A tool_use block starts with an empty input; its JSON arrives in input_json_delta pieces.
      send('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: anthropicToolId(index), name: call.name, input: {} },
      });
      for (const partial_json of splitPieces(JSON.stringify(call.args)))
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
      send('content_block_stop', { index });
    });
  }
  send('message_delta', {
    delta: { stop_reason: answer.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
    usage: { output_tokens: MOCK_OUTPUT_TOKENS },
  });
  send('message_stop', {});
  sse.end();
}

/** POST /v1/messages, plain and streamed. */
export function answerMessages(res: http.ServerResponse, body: Body): void {
  const model = String(body.model ?? '');
  if (typeof body.max_tokens !== 'number') return anthropicError(res, 400, 'max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return anthropicError(res, 400, 'messages: at least one message is required');
  if (formatOf(body) && NO_STRUCTURED_OUTPUT_MODELS.includes(model))
    return anthropicError(res, 400, `'${model}' does not support output_config.format`);
  const turn = messagesTurn(body);
  const bad = turn.tools.findIndex((t) => hasUpperCaseTypes(t.schema));
  if (bad >= 0)
    return anthropicError(res, 400, `tools.${bad}.custom.input_schema: Invalid schema: JSON schema is invalid`);
  if (hasUpperCaseTypes(turn.schema))
    return anthropicError(res, 400, 'output_config.format.schema: Invalid schema: JSON schema is invalid');
  const answer = planAnswer(turn, 'anthropic');
  if (body.stream === true) return streamMessage(res, model, answer);
  sendJson(res, 200, {
    id: MESSAGE_ID,
    type: 'message',
    role: 'assistant',
    model,
    content: contentOf(answer),
    stop_reason: answer.kind === 'text' ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: usage(MOCK_OUTPUT_TOKENS),
  });
}

/** POST /v1/messages/count_tokens. */
export function answerCountTokens(res: http.ServerResponse): void {
  sendJson(res, 200, { input_tokens: MOCK_INPUT_TOKENS });
}

/** GET /v1/models and /v1/models/{id} in Anthropic's shape. */
export function answerAnthropicModels(res: http.ServerResponse, path: string): void {
  const created_at = new Date(MOCK_CREATED * 1000).toISOString();
  const model = (id: string) => ({ type: 'model', id, display_name: id, created_at });
  const one = /^\/v1\/models\/(.+)$/.exec(path)?.[1];
  if (one === undefined)
    return sendJson(res, 200, {
      data: ANTHROPIC_MODELS.map(model),
      has_more: false,
      first_id: ANTHROPIC_MODELS[0],
      last_id: ANTHROPIC_MODELS.at(-1),
    });
  const id = decodeURIComponent(one);
  if (!ANTHROPIC_MODELS.includes(id)) return anthropicError(res, 404, `model: ${id}`);
  sendJson(res, 200, model(id));
}
