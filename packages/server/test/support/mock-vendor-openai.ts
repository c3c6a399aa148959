import type http from 'node:http';
import { hasUpperCaseTypes } from './schema-sample.js';
import {
  MOCK_EMBEDDING,
  MOCK_INPUT_TOKENS,
  MOCK_OUTPUT_TOKENS,
  imageOfUrl,
  planAnswer,
  splitPieces,
  textOf,
  type Answer,
  type Turn,
} from './mock-vendor-plan.js';
import { MOCK_CREATED, openSse, sendJson } from './mock-vendor-wire.js';

type Body = Record<string, unknown>;
type Message = { role?: string; content?: unknown; tool_calls?: unknown[] };

/** Models the OpenAI mock lists at GET /v1/models. */
export const OPENAI_MODELS = ['gpt-4o-mini', 'text-embedding-3-small'];
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_denied',
  404: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

/** An error in OpenAI's shape. */
export function openaiError(
  res: http.ServerResponse,
  status: number,
  message: string,
  code: string | null = null,
  param: string | null = null,
): void {
  sendJson(res, status, { error: { message, type: ERROR_TYPES[status] ?? 'server_error', param, code } });
}

export const openaiUsage = () => ({
  prompt_tokens: MOCK_INPUT_TOKENS,
  completion_tokens: MOCK_OUTPUT_TOKENS,
  total_tokens: MOCK_INPUT_TOKENS + MOCK_OUTPUT_TOKENS,
});

/** The OpenAI call id of the i-th call of an answer. */
export const openaiCallId = (i: number) => `call_${i + 1}`;

/** The structured-output schema of a response_format / Responses text.format. */
export function schemaOfFormat(format: unknown): unknown {
  const f = format as { type?: string; json_schema?: { schema?: unknown }; schema?: unknown } | undefined;
  if (f?.type === 'json_object') return 'json_object';
  if (f?.type === 'json_schema') return f.json_schema?.schema ?? f.schema ?? {};
  return undefined;
}

/** The first tool / response schema with Gemini-style types, named as OpenAI's 400 names it. */
export function invalidSchemaParam(
  tools: { schema: unknown }[],
  format: unknown,
  toolsParam: (i: number) => string,
  formatParam: string,
): string | undefined {
  const bad = tools.findIndex((t) => hasUpperCaseTypes(t.schema));
  if (bad >= 0) return toolsParam(bad);
  const schema = schemaOfFormat(format);
  return schema !== 'json_object' && hasUpperCaseTypes(schema) ? formatParam : undefined;
}

function chatTurn(body: Body): Turn {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
  const tools = (
    (Array.isArray(body.tools) ? body.tools : []) as { function?: { name?: string; parameters?: unknown } }[]
  ).map((t) => ({
    name: String(t.function?.name ?? ''),
    schema: t.function?.parameters ?? {},
  }));
  const choice = body.tool_choice as string | { function?: { name?: string } } | undefined;
  let trailing = messages.length;
  while (trailing > 0 && messages[trailing - 1]!.role === 'tool') trailing--;
  const results = messages.slice(trailing).map((m) => textOf(m.content));
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const last = messages.at(-1);
  const imagePart =
    last?.role === 'user' && Array.isArray(last.content)
      ? (last.content as { type?: string; image_url?: { url?: string } }[]).find((p) => p.type === 'image_url')
      : undefined;
  return {
    tools,
    forcedTool: typeof choice === 'object' ? choice.function?.name : undefined,
    noTools: choice === 'none',
    toolResults: results.length ? results : null,
    lastUserText: textOf(lastUser?.content),
    image: imagePart?.image_url?.url ? imageOfUrl(imagePart.image_url.url) : undefined,
    schema: schemaOfFormat(body.response_format),
  };
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null, withUsage: boolean) {
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion.chunk',
    created: MOCK_CREATED,
    model,
    system_fingerprint: 'fp_mock',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(withUsage ? { usage: null } : {}),
  };
}

function streamChat(res: http.ServerResponse, model: string, answer: Answer, includeUsage: boolean): void {
  const sse = openSse(res);
  sse.send(
    chunk(model, { role: 'assistant', content: answer.kind === 'text' ? '' : null, refusal: null }, null, includeUsage),
  );
  if (answer.kind === 'text') {
    for (const piece of answer.pieces) sse.send(chunk(model, { content: piece }, null, includeUsage));
  } else {
    answer.calls.forEach((call, index) => {
      // First delta of a call: id, type and name; later deltas: pieces of the arguments only.
      sse.send(
        chunk(
          model,
          {
            tool_calls: [
              { index, id: openaiCallId(index), type: 'function', function: { name: call.name, arguments: '' } },
            ],
          },
          null,
          includeUsage,
        ),
      );
      for (const piece of splitPieces(JSON.stringify(call.args)))
        sse.send(chunk(model, { tool_calls: [{ index, function: { arguments: piece } }] }, null, includeUsage));
    });
  }
  sse.send(chunk(model, {}, answer.kind === 'text' ? 'stop' : 'tool_calls', includeUsage));
  if (includeUsage)
    sse.send({
      id: 'chatcmpl-mock',
      object: 'chat.completion.chunk',
      created: MOCK_CREATED,
      model,
      system_fingerprint: 'fp_mock',
      choices: [],
      usage: openaiUsage(),
    });
  sse.raw('data: [DONE]\n\n');
  sse.end();
}

/** POST /v1/chat/completions, plain and streamed (usage chunk only with stream_options.include_usage). */
export function answerChat(res: http.ServerResponse, body: Body): void {
  const model = String(body.model ?? '');
  const turn = chatTurn(body);
  const invalid = invalidSchemaParam(
    turn.tools,
    body.response_format,
    (i) => `tools[${i}].function.parameters`,
    'response_format.json_schema.schema',
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
  if (body.stream === true)
    return streamChat(
      res,
      model,
      answer,
      (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true,
    );
  const message =
    answer.kind === 'text'
      ? { role: 'assistant', content: answer.pieces.join(''), refusal: null, annotations: [] }
      : {
          role: 'assistant',
          content: null,
          refusal: null,
          annotations: [],
          tool_calls: answer.calls.map((c, i) => ({
            id: openaiCallId(i),
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          })),
        };
  sendJson(res, 200, {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: MOCK_CREATED,
    model,
    system_fingerprint: 'fp_mock',
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.kind === 'text' ? 'stop' : 'tool_calls' }],
    usage: openaiUsage(),
  });
}

/** The embedding vector as base64 of Float32 little-endian values. */
export function embeddingBase64(values = MOCK_EMBEDDING): string {
  const buf = Buffer.alloc(values.length * Float32Array.BYTES_PER_ELEMENT);
  values.forEach((v, i) => buf.writeFloatLE(v, i * Float32Array.BYTES_PER_ELEMENT));
  return buf.toString('base64');
}

/** POST /v1/embeddings: one vector per input; `encoding_format: "base64"` answers base64 strings. */
export function answerEmbeddings(res: http.ServerResponse, body: Body): void {
  const input = body.input;
  if (input === undefined || input === null || input === '' || (Array.isArray(input) && input.length === 0)) {
    return openaiError(res, 400, "'input' is a required property", null, 'input');
  }
  // A list of strings or of token arrays is several inputs; one string or one token array is a single input.
  const many = Array.isArray(input) && input.length > 0 && (typeof input[0] === 'string' || Array.isArray(input[0]));
  const inputs = many ? (input as unknown[]) : [input];
  const base64 = body.encoding_format === 'base64';
  sendJson(res, 200, {
    object: 'list',
    data: inputs.map((_, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? embeddingBase64() : MOCK_EMBEDDING,
    })),
    model: String(body.model ?? ''),
    usage: { prompt_tokens: MOCK_INPUT_TOKENS, total_tokens: MOCK_INPUT_TOKENS },
  });
}

/** GET /v1/models and /v1/models/{id}. */
export function answerOpenAIModels(res: http.ServerResponse, path: string): void {
  const model = (id: string) => ({ id, object: 'model', created: MOCK_CREATED, owned_by: 'openai' });
  const one = /^\/v1\/models\/(.+)$/.exec(path)?.[1];
  if (one === undefined) return sendJson(res, 200, { object: 'list', data: OPENAI_MODELS.map(model) });
  const id = decodeURIComponent(one);
  if (!OPENAI_MODELS.includes(id))
    return openaiError(res, 404, `The model '${id}' does not exist`, 'model_not_found', 'model');
  sendJson(res, 200, model(id));
}
