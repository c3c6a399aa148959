import type http from 'node:http';
import {
  MOCK_INPUT_TOKENS,
  MOCK_OUTPUT_TOKENS,
  imageOfUrl,
  planAnswer,
  splitPieces,
  textOf,
  type Answer,
  type Turn,
} from './mock-vendor-plan.js';
import { invalidSchemaParam, openaiCallId, openaiError, schemaOfFormat } from './mock-vendor-openai.js';
import { MOCK_CREATED, openSse, sendJson } from './mock-vendor-wire.js';

type Body = Record<string, unknown>;
type Item = { type?: string; role?: string; content?: unknown; output?: unknown; image_url?: string };

const MESSAGE_ID = 'msg_mock';
const RESPONSE_ID = 'resp_mock';

function responsesTurn(body: Body): Turn {
  const input = body.input;
  const items: Item[] =
    typeof input === 'string'
      ? [{ type: 'message', role: 'user', content: input }]
      : Array.isArray(input)
        ? (input as Item[])
        : [];
  const tools = (
    (Array.isArray(body.tools) ? body.tools : []) as { type?: string; name?: string; parameters?: unknown }[]
  )
    .filter((t) => t.type === 'function')
    .map((t) => ({ name: String(t.name ?? ''), schema: t.parameters ?? {} }));
  const choice = body.tool_choice as string | { type?: string; name?: string } | undefined;
  let trailing = items.length;
  while (trailing > 0 && items[trailing - 1]!.type === 'function_call_output') trailing--;
  const results = items.slice(trailing).map((i) => textOf(i.output));
  const isUser = (i: Item) => i.role === 'user' && (i.type === undefined || i.type === 'message');
  const lastUser = [...items].reverse().find(isUser);
  const last = items.at(-1);
  const imagePart =
    last && isUser(last) && Array.isArray(last.content)
      ? (last.content as Item[]).find((p) => p.type === 'input_image')
      : undefined;
  return {
    tools,
    forcedTool: typeof choice === 'object' && choice.type === 'function' ? choice.name : undefined,
    noTools: choice === 'none',
    toolResults: results.length ? results : null,
    lastUserText: textOf(lastUser?.content),
    image: imagePart?.image_url ? imageOfUrl(imagePart.image_url) : undefined,
    schema: schemaOfFormat((body.text as { format?: unknown } | undefined)?.format),
  };
}

const usage = () => ({
  input_tokens: MOCK_INPUT_TOKENS,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: MOCK_OUTPUT_TOKENS,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: MOCK_INPUT_TOKENS + MOCK_OUTPUT_TOKENS,
});

/** The output items of an answer, as done. */
function outputItems(answer: Answer): Record<string, unknown>[] {
  if (answer.kind === 'text') {
    return [
      {
        type: 'message',
        id: MESSAGE_ID,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: answer.pieces.join(''), annotations: [], logprobs: [] }],
      },
    ];
  }
  return answer.calls.map((c, i) => ({
    type: 'function_call',
    id: `fc_${i + 1}`,
    call_id: openaiCallId(i),
    name: c.name,
    arguments: JSON.stringify(c.args),
    status: 'completed',
  }));
}

function responseObject(body: Body, status: string, output: unknown[], withUsage: boolean) {
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: MOCK_CREATED,
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: String(body.model ?? ''),
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: withUsage ? usage() : null,
    metadata: {},
  };
}

function streamResponse(res: http.ServerResponse, body: Body, answer: Answer): void {
  const sse = openSse(res);
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    sse.send({ type, sequence_number: seq++, ...data }, type);
  send('response.created', { response: responseObject(body, 'in_progress', [], false) });
  send('response.in_progress', { response: responseObject(body, 'in_progress', [], false) });
  const done = outputItems(answer);
  if (answer.kind === 'text') {
    const text = answer.pieces.join('');
    const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    const ids = { item_id: MESSAGE_ID, output_index: 0, content_index: 0 };
    send('response.output_item.added', {
      output_index: 0,
      item: { type: 'message', id: MESSAGE_ID, status: 'in_progress', role: 'assistant', content: [] },
    });
    send('response.content_part.added', { ...ids, part });
    for (const delta of answer.pieces) send('response.output_text.delta', { ...ids, delta, logprobs: [] });
    send('response.output_text.done', { ...ids, text, logprobs: [] });
    send('response.content_part.done', { ...ids, part: { ...part, text } });
    send('response.output_item.done', { output_index: 0, item: done[0] });
  } else {
    done.forEach((item, output_index) => {
      const args = String(item.arguments);
      send('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const delta of splitPieces(args))
        send('response.function_call_arguments.delta', { item_id: item.id, output_index, delta });
      send('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: args });
      send('response.output_item.done', { output_index, item });
    });
  }
  send('response.completed', { response: responseObject(body, 'completed', done, true) });
  sse.end();
}

/** POST /v1/responses, plain and streamed (semantic SSE events, usage in response.completed). */
export function answerResponses(res: http.ServerResponse, body: Body): void {
  const turn = responsesTurn(body);
  const invalid = invalidSchemaParam(
    turn.tools,
    (body.text as { format?: unknown } | undefined)?.format,
    (i) => `tools[${i}].parameters`,
    'text.format.schema',
  );
  if (invalid)
    return openaiError(
      res,
      400,
      `Invalid schema for ${invalid}: schema type must be a JSON Schema type (lower-case).`,
      'invalid_function_parameters',
      invalid,
    );
  const answer = planAnswer(turn, 'openai');
  if (body.stream === true) return streamResponse(res, body, answer);
  sendJson(res, 200, responseObject(body, 'completed', outputItems(answer), true));
}
