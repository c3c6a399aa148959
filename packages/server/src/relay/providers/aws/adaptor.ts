import { baseUrlOf } from '../base-url.js';
import { UpstreamPrepareError } from '../prepare.js';
import type { PreparedRequest, UpstreamAdaptor, UpstreamCall } from '../types.js';
import { BedrockStreamFramer } from './bedrock-stream.js';
import { bedrockModelId } from './models.js';
import { signRequest, type AwsCredentials } from './sigv4.js';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** `Ak|Sk|Region` → credentials and region. */
export function parseBedrockKey(key: string): AwsCredentials & { region: string } {
  const [accessKeyId, secretAccessKey, region] = key.split('|').map((p) => p.trim());
  if (!accessKeyId || !secretAccessKey || !region)
    throw new UpstreamPrepareError('AWS Bedrock key must be Ak|Sk|Region', 401);
  return { accessKeyId, secretAccessKey, region };
}

/** `{base}/model/{modelId}/{action}`; the base is `bedrock-runtime.{region}.amazonaws.com` unless the channel sets one. */
function modelUrl(call: UpstreamCall, action: string): URL {
  const region = call.key.split('|')[2]?.trim() || 'us-east-1';
  const base = baseUrlOf(call.channel, `https://bedrock-runtime.${region}.amazonaws.com`);
  return new URL(`${base}/model/${encodeURIComponent(bedrockModelId(call.model, region))}/${action}`);
}

const headersFor = (stream: boolean): Record<string, string> => ({
  'content-type': 'application/json',
  accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
});

/** SigV4 (service `bedrock`) over the final body, with the key's credentials. */
function signed(
  call: UpstreamCall,
  url: URL,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): PreparedRequest {
  const { accessKeyId, secretAccessKey, region } = parseBedrockKey(call.key);
  const text = JSON.stringify(body);
  const send = {
    'content-type': headers['content-type'] ?? 'application/json',
    accept: headers.accept ?? 'application/json',
  };
  const s = signRequest({
    method: 'POST',
    url,
    headers: send,
    body: text,
    region,
    service: 'bedrock',
    credentials: { accessKeyId, secretAccessKey },
    now: new Date(),
    contentSha256: true,
  });
  return { url, headers: { ...send, ...s.headers }, body: text };
}

/**
 * AWS Bedrock (type 33), Claude through InvokeModel: `/model/{id}/invoke` or `/invoke-with-response-stream`
 * (AWS event stream carrying Anthropic events), body = Anthropic Messages without `model`/`stream`, with
 * `anthropic_version` (and any `anthropic-beta` header moved into `anthropic_beta`).
 */
export const bedrockClaudeAdaptor: UpstreamAdaptor<'anthropic'> = {
  format: 'anthropic',
  target: (call) => ({
    url: modelUrl(call, call.stream ? 'invoke-with-response-stream' : 'invoke'),
    headers: headersFor(call.stream),
  }),
  prepare(call, { url, headers, body }) {
    const shaped: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...body };
    delete shaped.model;
    delete shaped.stream;
    const beta = headers['anthropic-beta'];
    if (beta)
      shaped.anthropic_beta = beta
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean);
    return signed(call, url, headers, shaped);
  },
  streamFramer: () => new BedrockStreamFramer('invoke'),
};

/** AWS Bedrock, every other model through the Converse API: `/model/{id}/converse` or `/converse-stream`. */
export const bedrockConverseAdaptor: UpstreamAdaptor<'converse'> = {
  format: 'converse',
  target: (call) => ({
    url: modelUrl(call, call.stream ? 'converse-stream' : 'converse'),
    headers: headersFor(call.stream),
  }),
  prepare: (call, { url, headers, body }) => signed(call, url, headers, body),
  streamFramer: () => new BedrockStreamFramer('converse'),
};

/** Claude names and Anthropic model ids go to InvokeModel, anything else to Converse. */
export const bedrockAdaptorFor = (model: string): UpstreamAdaptor<'anthropic' | 'converse'> =>
  /^claude|(^|\.)anthropic\./.test(model) ? bedrockClaudeAdaptor : bedrockConverseAdaptor;
