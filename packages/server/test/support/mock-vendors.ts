import type http from 'node:http';
import { tc3Sign } from '../../src/relay/providers/tencent/tc3.js';
import type { MockBehavior } from './mock-upstream.js';

type B = MockBehavior & { promptTokens: number; completionTokens: number; pieces: string[] };
type Json = Record<string, unknown>;

/**
 * Native vendor wire formats for the mock upstream, written from each vendor's public API reference:
 * Cohere chat v2 and rerank v2, Jina rerank, Dify chat-messages, Coze chat v3, Tencent Hunyuan ChatCompletions
 * (TC3-signed; the secret of SecretId `AKID…` is `TENCENT_SECRETS[SecretId]`). OpenAI-compatible vendors are
 * served by the OpenAI answers under their own path prefixes (see `vendorOpenAIPath`).
 */

/**
 * The OpenAI path a compatible vendor's path stands for (`/api/paas/v4/chat/completions` → `/v1/chat/completions`;
 * Azure's `/openai/deployments/{deployment}/chat/completions` too).
 */
export function vendorOpenAIPath(path: string): string | undefined {
  const m =
    /^(?:\/compatible-mode\/v1|\/api\/paas\/v4|\/api\/v3|\/v2|\/client\/v4\/accounts\/[^/]+\/ai\/v1|\/openai\/deployments\/[^/]+)\/(chat\/completions|embeddings|models)$/.exec(
      path,
    );
  return m ? `/v1/${m[1]}` : undefined;
}

const sse = (res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (data: unknown, event?: string) =>
    res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
};
const json = (res: http.ServerResponse, body: unknown) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** Cohere POST /v2/chat: usage in billed_units and tokens (tokens deliberately different, billing must use billed_units). */
function cohereChat(res: http.ServerResponse, body: Json, b: B): void {
  const usage = {
    billed_units: { input_tokens: b.promptTokens, output_tokens: b.completionTokens },
    tokens: { input_tokens: b.promptTokens + 100, output_tokens: b.completionTokens },
  };
  if (body.stream !== true) {
    json(res, {
      id: 'co-mock',
      finish_reason: 'COMPLETE',
      message: { role: 'assistant', content: [{ type: 'text', text: b.pieces.join('') }] },
      usage,
    });
    return;
  }
  const send = sse(res);
  send(
    {
      type: 'message-start',
      id: 'co-mock',
      delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
    },
    'message-start',
  );
  send(
    { type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } },
    'content-start',
  );
  for (const piece of b.pieces)
    send({ type: 'content-delta', index: 0, delta: { message: { content: { text: piece } } } }, 'content-delta');
  send({ type: 'content-end', index: 0 }, 'content-end');
  send({ type: 'message-end', delta: { finish_reason: 'COMPLETE', usage } }, 'message-end');
  res.end();
}

/** Dify POST /v1/chat-messages, streaming (as the relay always asks): `data:` events (message…, message_end with metadata.usage). */
function difyChat(res: http.ServerResponse, b: B): void {
  const usage = {
    prompt_tokens: b.promptTokens,
    completion_tokens: b.completionTokens,
    total_tokens: b.promptTokens + b.completionTokens,
    total_price: '0.0001',
    currency: 'USD',
    latency: 0.5,
  };
  const base = {
    task_id: 'task-1',
    id: 'msg-dify',
    message_id: 'msg-dify',
    conversation_id: 'conv-1',
    created_at: 1700000000,
  };
  const send = sse(res);
  for (const piece of b.pieces) send({ event: 'message', ...base, answer: piece });
  send({ event: 'ping' });
  send({ event: 'message_end', ...base, metadata: { usage, retriever_resources: [] } });
  res.end();
}

/** Coze POST /v3/chat (stream only, as the relay always asks): message deltas, chat.completed with usage, done; `pat-revoked` is refused. */
function cozeChat(req: http.IncomingMessage, res: http.ServerResponse, body: Json, b: B): void {
  // A revoked token: Coze refuses with an error envelope in a 200 JSON answer.
  if (req.headers.authorization === 'Bearer pat-revoked')
    return void json(res, { code: 4100, msg: 'authentication is invalid' });
  const chat = { id: 'chat-1', conversation_id: 'conv-1', bot_id: String(body.bot_id ?? ''), created_at: 1700000000 };
  const send = sse(res);
  send({ ...chat, status: 'created' }, 'conversation.chat.created');
  send({ ...chat, status: 'in_progress' }, 'conversation.chat.in_progress');
  for (const piece of b.pieces)
    send(
      {
        id: 'm-1',
        conversation_id: 'conv-1',
        bot_id: chat.bot_id,
        role: 'assistant',
        type: 'answer',
        content: piece,
        content_type: 'text',
        chat_id: 'chat-1',
      },
      'conversation.message.delta',
    );
  send(
    {
      id: 'm-1',
      conversation_id: 'conv-1',
      role: 'assistant',
      type: 'answer',
      content: b.pieces.join(''),
      content_type: 'text',
      chat_id: 'chat-1',
    },
    'conversation.message.completed',
  );
  send(
    {
      id: 'm-2',
      conversation_id: 'conv-1',
      role: 'assistant',
      type: 'verbose',
      content: '{"msg_type":"generate_answer_finish"}',
      content_type: 'text',
      chat_id: 'chat-1',
    },
    'conversation.message.completed',
  );
  send(
    {
      ...chat,
      status: 'completed',
      completed_at: 1700000001,
      usage: {
        token_count: b.promptTokens + b.completionTokens,
        output_count: b.completionTokens,
        input_count: b.promptTokens,
      },
    },
    'conversation.chat.completed',
  );
  send('"[DONE]"', 'done');
  res.end();
}

/** Rerank: Jina POST /v1/rerank (usage.total_tokens, documents echoed when asked) and Cohere POST /v2/rerank (billed search units). */
function rerank(res: http.ServerResponse, path: string, body: Json, b: B): void {
  const docs = (body.documents ?? []) as string[];
  const order = docs
    .map((_, i) => i)
    .reverse()
    .slice(0, Number(body.top_n ?? docs.length));
  const results = order.map((index, rank) => ({ index, relevance_score: Number((0.9 - rank * 0.1).toFixed(2)) }));
  if (path === '/v2/rerank') {
    json(res, { id: 'rr-mock', results, meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } } });
    return;
  }
  json(res, {
    model: body.model,
    usage: { total_tokens: b.promptTokens },
    results: results.map((r) => ({ ...r, ...(body.return_documents ? { document: { text: docs[r.index] } } : {}) })),
  });
}

/** SecretKeys the Tencent mock knows, by SecretId. */
export const TENCENT_SECRETS: Record<string, string> = { AKIDmockTollway: 'mock-secret-key' };

/**
 * Tencent Hunyuan `X-TC-Action: ChatCompletions` on `/`: the TC3 signature is checked over the exact bytes
 * received (Response.Error AuthFailure.SignatureFailure otherwise, with HTTP 200 as Tencent does); usage is
 * running on every chunk.
 */
function hunyuanChat(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer, body: Json, b: B): void {
  const auth = String(req.headers.authorization ?? '');
  const m =
    /^TC3-HMAC-SHA256 Credential=([^/]+)\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host, Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  const secretKey = m ? TENCENT_SECRETS[m[1]!] : undefined;
  const expected = secretKey
    ? tc3Sign({
        secretId: m![1]!,
        secretKey,
        service: 'hunyuan',
        host: String(req.headers.host),
        contentType: String(req.headers['content-type']),
        payload: raw.toString('utf8'),
        timestamp: Number(req.headers['x-tc-timestamp']),
      }).signature
    : undefined;
  if (!expected || expected !== m![2] || req.headers['x-tc-version'] !== '2023-09-01') {
    json(res, {
      Response: {
        Error: { Code: 'AuthFailure.SignatureFailure', Message: 'The provided credentials could not be validated.' },
        RequestId: 'req-bad',
      },
    });
    return;
  }
  const usage = (completion: number) => ({
    PromptTokens: b.promptTokens,
    CompletionTokens: completion,
    TotalTokens: b.promptTokens + completion,
  });
  if (body.Stream !== true) {
    json(res, {
      Response: {
        RequestId: 'req-1',
        Id: 'hy-mock',
        Created: 1700000000,
        Note: '以上内容为AI生成',
        Choices: [{ Index: 0, FinishReason: 'stop', Message: { Role: 'assistant', Content: b.pieces.join('') } }],
        Usage: usage(b.completionTokens),
      },
    });
    return;
  }
  const send = sse(res);
  b.pieces.forEach((piece, i) => {
    const last = i === b.pieces.length - 1;
    send({
      Note: '以上内容为AI生成',
      Choices: [{ Delta: { Role: 'assistant', Content: piece }, FinishReason: last ? 'stop' : '' }],
      Created: 1700000000,
      Id: 'hy-mock',
      Usage: usage(last ? b.completionTokens : i + 1),
    });
  });
  res.end();
}

/** Answers a native vendor path; false when the path is not one of them. */
export function answerVendor(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: Buffer,
  path: string,
  body: Json,
  b: B,
): boolean {
  if (path === '/' && req.headers['x-tc-action'] === 'ChatCompletions') hunyuanChat(req, res, raw, body, b);
  else if (path === '/v2/chat') cohereChat(res, body, b);
  else if (path === '/v1/chat-messages') difyChat(res, b);
  else if (path === '/v3/chat') cozeChat(req, res, body, b);
  else if (path === '/v1/rerank' || path === '/v2/rerank') rerank(res, path, body, b);
  else return false;
  return true;
}
