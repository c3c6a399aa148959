import crypto from 'node:crypto';
import http from 'node:http';
import {
  canonicalRequest,
  credentialScope,
  sha256Hex,
  signingKey,
  stringToSign,
} from '../../src/relay/providers/aws/sigv4.js';
import { bedrockChunk, bedrockException, converseEvent } from './aws-event-stream.js';
import { listenLocally } from './local-server.js';
import { answerAnthropic } from './mock-native.js';
import type { MockBehavior } from './mock-upstream.js';

export interface MockBedrock {
  url: string;
  /** Accepted (correctly signed) requests, newest last. */
  requests: {
    path: string;
    modelId: string;
    accessKeyId: string;
    region: string;
    body: Record<string, unknown>;
    headers: http.IncomingHttpHeaders;
  }[];
  /** Requests refused for their signature, with the reason. */
  refused: string[];
  /** Behaviour by access key id. */
  behaviors: Map<string, MockBehavior>;
  /** Access key id → number of stream events after which a throttlingException ends the stream. */
  cutStreams: Map<string, number>;
  close(): Promise<void>;
}

const DEFAULTS = { promptTokens: 12, completionTokens: 5, pieces: ['Hello', ' from', ' the', ' mock', '!'] };

type Verified =
  { ok: true; accessKeyId: string; region: string } | { ok: false; status: number; type: string; message: string };

/** Checks a request's SigV4 Authorization header the way AWS does, with the secrets the mock knows. */
function verify(req: http.IncomingMessage, raw: Buffer, secrets: Record<string, string>): Verified {
  const auth = String(req.headers.authorization ?? '');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m)
    return {
      ok: false,
      status: 403,
      type: 'IncompleteSignatureException',
      message: 'Authorization header requires a valid SigV4 credential, signed headers and signature',
    };
  const [, accessKeyId, date, region, service, signedHeaders, signature] = m as unknown as string[];
  const secret = secrets[accessKeyId!];
  if (!secret)
    return {
      ok: false,
      status: 403,
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  if (service !== 'bedrock')
    return {
      ok: false,
      status: 403,
      type: 'InvalidSignatureException',
      message: `credential should be scoped to correct service: 'bedrock'`,
    };
  const xDate = String(req.headers['x-amz-date'] ?? '');
  const signed = signedHeaders!.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date') || !xDate.startsWith(date!))
    return {
      ok: false,
      status: 403,
      type: 'InvalidSignatureException',
      message: 'host and x-amz-date must be signed and match the credential date',
    };
  if (
    Math.abs(
      Date.parse(
        `${xDate.slice(0, 4)}-${xDate.slice(4, 6)}-${xDate.slice(6, 8)}T${xDate.slice(9, 11)}:${xDate.slice(11, 13)}:${xDate.slice(13, 15)}Z`,
      ) - Date.now(),
    ) >
    5 * 60_000
  ) {
    return { ok: false, status: 403, type: 'InvalidSignatureException', message: 'Signature expired' };
  }
  const payloadHash = sha256Hex(raw);
  const declared = req.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== payloadHash)
    return {
      ok: false,
      status: 400,
      type: 'XAmzContentSHA256Mismatch',
      message: 'The provided x-amz-content-sha256 does not match the body',
    };
  const headers: Record<string, string> = {};
  for (const name of signed) headers[name] = String(req.headers[name] ?? '');
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const canonical = canonicalRequest(req.method ?? 'POST', url, 'bedrock', headers, payloadHash);
  const expected = crypto
    .createHmac('sha256', signingKey(secret, date!, region!, 'bedrock'))
    .update(stringToSign(xDate, credentialScope(date!, region!, 'bedrock'), canonical.text))
    .digest('hex');
  if (!crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(signature!))) {
    return {
      ok: false,
      status: 403,
      type: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided.',
    };
  }
  return { ok: true, accessKeyId: accessKeyId!, region: region! };
}

/** Re-frames the SSE an Anthropic mock answer writes as Bedrock event-stream `chunk` events (cut by an exception after `cutAfter`). */
function eventStreamWriter(res: http.ServerResponse, cutAfter = Infinity): http.ServerResponse {
  let pending = '';
  let sent = 0;
  const frame = (text: string) => {
    if (sent >= cutAfter) return;
    pending += text;
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const data = block.split('\n').find((l) => l.startsWith('data: '));
      if (!data) continue;
      res.write(bedrockChunk(JSON.parse(data.slice(6))));
      if (++sent === cutAfter) {
        res.end(bedrockException('throttlingException', 'Too many tokens, please wait before trying again.'));
        return;
      }
    }
  };
  return {
    writeHead: () =>
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'req-mock' }),
    write: (chunk: string) => {
      frame(chunk);
      return true;
    },
    end: (chunk?: string) => {
      if (chunk) frame(chunk);
      if (!res.writableEnded) res.end();
    },
  } as unknown as http.ServerResponse;
}

const validConverse = (body: Record<string, unknown>): boolean =>
  Array.isArray(body.messages) &&
  body.messages.every(
    (m: { role?: unknown; content?: unknown }) =>
      (m.role === 'user' || m.role === 'assistant') && Array.isArray(m.content) && m.content.length > 0,
  );

/** Converse (JSON) and ConverseStream (event stream), written from the Bedrock API reference. */
function answerConverse(res: http.ServerResponse, stream: boolean, b: typeof DEFAULTS & MockBehavior): void {
  const usage = {
    inputTokens: b.promptTokens,
    outputTokens: b.completionTokens,
    totalTokens: b.promptTokens + b.completionTokens,
    ...(b.cachedTokens ? { cacheReadInputTokens: b.cachedTokens } : {}),
  };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        output: { message: { role: 'assistant', content: [{ text: b.pieces.join('') }] } },
        stopReason: 'end_turn',
        usage,
        metrics: { latencyMs: 12 },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
  res.write(converseEvent('messageStart', { role: 'assistant' }));
  for (const text of b.pieces) res.write(converseEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text } }));
  res.write(converseEvent('contentBlockStop', { contentBlockIndex: 0 }));
  res.write(converseEvent('messageStop', { stopReason: 'end_turn' }));
  res.end(converseEvent('metadata', { usage, metrics: { latencyMs: 12 } }));
}

/**
 * A mock AWS Bedrock runtime: InvokeModel and InvokeModelWithResponseStream for Claude, Converse and
 * ConverseStream for other models, refusing any request whose SigV4 signature does not verify with the secret
 * of its access key, and bodies Bedrock would refuse (a `model` or `stream` field, InvokeModel without
 * anthropic_version, Converse messages that are not content-block lists).
 */
export async function startMockBedrock(secrets: Record<string, string>): Promise<MockBedrock> {
  const requests: MockBedrock['requests'] = [];
  const refused: string[] = [];
  const behaviors = new Map<string, MockBehavior>();
  const cutStreams = new Map<string, number>();
  const fail = (res: http.ServerResponse, status: number, type: string, message: string) => {
    res
      .writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type })
      .end(JSON.stringify({ message }));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const v = verify(req, raw, secrets);
      if (!v.ok) {
        refused.push(v.message);
        return fail(res, v.status, v.type, v.message);
      }
      const route = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream)$/.exec(
        (req.url ?? '').split('?')[0]!,
      );
      if (!route) return fail(res, 404, 'UnknownOperationException', `no route ${req.url}`);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        return fail(
          res,
          400,
          'ValidationException',
          'Malformed input request, please reformat your input and try again.',
        );
      }
      const extraneous = ['model', 'stream'].filter((k) => k in body);
      if (extraneous.length)
        return fail(
          res,
          400,
          'ValidationException',
          `Malformed input request: extraneous key [${extraneous[0]}] is not permitted`,
        );
      const converse = route[2]!.startsWith('converse');
      if (converse && !validConverse(body))
        return fail(res, 400, 'ValidationException', 'messages must be a list of {role, content: [blocks]}');
      if (!converse && body.anthropic_version !== 'bedrock-2023-05-31')
        return fail(res, 400, 'ValidationException', 'Malformed input request: anthropic_version is required');
      const modelId = decodeURIComponent(route[1]!);
      requests.push({
        path: req.url ?? '',
        modelId,
        accessKeyId: v.accessKeyId,
        region: v.region,
        body,
        headers: req.headers,
      });
      const b = { ...DEFAULTS, ...(behaviors.get(v.accessKeyId) ?? {}) };
      if (b.failStatus)
        return fail(
          res,
          b.failStatus,
          'ThrottlingException',
          b.failMessage ?? 'Too many requests, please wait before trying again.',
        );
      if (converse) return answerConverse(res, route[2] === 'converse-stream', b);
      const stream = route[2] === 'invoke-with-response-stream';
      void answerAnthropic(
        stream ? eventStreamWriter(res, cutStreams.get(v.accessKeyId)) : res,
        { ...body, model: modelId.replace(/^(us|eu|apac)\.anthropic\.|^anthropic\./, ''), stream },
        b,
      );
    });
  });
  const { url, close } = await listenLocally(server);
  return { url, requests, refused, behaviors, cutStreams, close };
}
