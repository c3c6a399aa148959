import { channelTypeById } from '@tollway/shared';
import { UpstreamPrepareError } from '../prepare.js';
import type { UpstreamAdaptor, UpstreamCall } from '../types.js';
import { BedrockStreamFramer } from './bedrock-stream.js';
import { bedrockModelId } from './models.js';
import { signRequest, type AwsCredentials } from './sigv4.js';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** `Ak|Sk|Region` (spec 2 §9) → credentials and region. */
export function parseBedrockKey(key: string): AwsCredentials & { region: string } {
  const [accessKeyId, secretAccessKey, region] = key.split('|').map((p) => p.trim());
  if (!accessKeyId || !secretAccessKey || !region) throw new UpstreamPrepareError('AWS Bedrock key must be Ak|Sk|Region', 401);
  return { accessKeyId, secretAccessKey, region };
}

const baseOf = (call: UpstreamCall, region: string): string =>
  (call.channel.baseUrl || channelTypeById.get(call.channel.type)?.baseUrl || `https://bedrock-runtime.${region}.amazonaws.com`).replace(/\/+$/, '');

/**
 * AWS Bedrock (type 33), Claude through InvokeModel: `{base}/model/{modelId}/invoke` or
 * `/invoke-with-response-stream` (AWS event stream), body = Anthropic Messages without `model`/`stream`, with
 * `anthropic_version` (and any `anthropic-beta` header moved into `anthropic_beta`), signed with SigV4
 * (service `bedrock`). The base URL is `bedrock-runtime.{region}.amazonaws.com` unless the channel sets one.
 */
export const bedrockAdaptor: UpstreamAdaptor = {
  format: 'anthropic',
  target(call) {
    const region = call.key.split('|')[2]?.trim() || 'us-east-1';
    const id = bedrockModelId(call.model, region);
    const url = new URL(`${baseOf(call, region)}/model/${encodeURIComponent(id)}/${call.stream ? 'invoke-with-response-stream' : 'invoke'}`);
    return { url, headers: { 'content-type': 'application/json', accept: call.stream ? 'application/vnd.amazon.eventstream' : 'application/json' } };
  },
  prepare(call, { url, headers, body }) {
    const { accessKeyId, secretAccessKey, region } = parseBedrockKey(call.key);
    const send: Record<string, string> = { 'content-type': headers['content-type'] ?? 'application/json', accept: headers.accept ?? 'application/json' };
    const beta = headers['anthropic-beta'];
    const shaped: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...body };
    delete shaped.model;
    delete shaped.stream;
    if (beta) shaped.anthropic_beta = beta.split(',').map((b) => b.trim()).filter(Boolean);
    const text = JSON.stringify(shaped);
    const signed = signRequest({ method: 'POST', url, headers: send, body: text, region, service: 'bedrock', credentials: { accessKeyId, secretAccessKey }, now: new Date(), contentSha256: true });
    return { url, headers: { ...send, ...signed.headers }, body: text };
  },
  streamFramer: () => new BedrockStreamFramer(),
};
