import type { AppContext } from '../../context.js';
import type { ChannelProbeResult } from '../../core/channel-probe.js';
import { channelModel, chooseKey, type CachedChannel } from '../../core/routing/channel-cache.js';
import { redactKeys } from '../../modules/channels/status.js';
import { formatFor } from '../providers/formats.js';
import { parseData } from '../ir/json-data.js';
import { adaptorFor } from '../providers/registry.js';
import { prepareRequest } from '../providers/prepare.js';
import { withHeaderOverride } from '../upstream/header-override.js';
import { openAIPaths } from '../providers/openai/request.js';
import { answerSummary, modelErrorMessage } from '../providers/upstream-json.js';
import type { RelayServices } from '../pipeline/services.js';

/**
 * Calls a channel's upstream once with a one-token chat request, through the same adaptor, wire format, model
 * mapping and prefix as the relay (so Anthropic and Gemini channels are tested in their own format). Never
 * returns the key.
 */
export async function testChannelUpstream(
  ctx: AppContext & { relay?: RelayServices },
  channel: CachedChannel,
  model: string,
): Promise<ChannelProbeResult> {
  const started = Date.now();
  const keyIndex = chooseKey(channel);
  if (keyIndex === undefined) return { ok: false, status: 0, message: 'channel has no usable key', elapsedMs: 0 };
  const mapped = channelModel(channel, model);
  if ('error' in mapped) return { ok: false, status: 0, message: mapped.error, elapsedMs: 0 };
  const upstreamModel = mapped.upstream;
  const adaptor = adaptorFor(channel.type, upstreamModel);
  if (!adaptor)
    return {
      ok: false,
      status: 0,
      message: `channel type ${channel.type} is not supported by this version`,
      elapsedMs: 0,
    };
  const call = {
    channel,
    key: channel.keys[keyIndex]!,
    model: upstreamModel,
    stream: false,
    openaiPath: openAIPaths.chat,
    options: ctx.options,
  };
  const { url, headers } = adaptor.target(call);
  const format = formatFor(adaptor.format);
  const body = format.requestFromIR({
    model: upstreamModel,
    system: [],
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    maxTokens: 1,
    stream: false,
  });
  const sent = await prepareRequest(adaptor, call, url, headers, body);
  if ('error' in sent)
    return { ok: false, status: sent.error.status, message: sent.error.message, elapsedMs: Date.now() - started };
  // As on relay calls, minus what needs a caller (client placeholders, pass-through rules).
  sent.headers = withHeaderOverride(sent.headers, channel, call.key, undefined);
  const { request } = await import('undici');
  try {
    const res = await request(sent.origin + sent.path, {
      method: 'POST',
      dispatcher: ctx.relay?.upstream.for(channel),
      headers: sent.headers,
      body: sent.body,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await res.body.text();
    const elapsedMs = Date.now() - started;
    if (res.statusCode >= 400) {
      // Only a model API's own error message reaches the caller; any other page is summarised and logged.
      const contentType = String(res.headers['content-type'] ?? '');
      const known = modelErrorMessage(text, contentType);
      if (!known)
        ctx.log.warn(
          { channel_id: channel.id, status: res.statusCode, contentType, body: redactKeys(text, channel.keys) },
          'channel test: upstream answer refused',
        );
      const message = redactKeys(known ?? answerSummary(res.statusCode, contentType), channel.keys);
      return { ok: false, status: res.statusCode, message, elapsedMs };
    }
    // Some upstreams (Tencent, Coze) refuse in a 200 JSON answer.
    const json =
      format.answerError && String(res.headers['content-type'] ?? '').includes('application/json')
        ? parseData(text)
        : undefined;
    const fault = json && format.answerError?.(json);
    if (fault) return { ok: false, status: fault.status, message: fault.message, elapsedMs };
    return { ok: true, status: res.statusCode, message: '', elapsedMs };
  } catch (err) {
    return {
      ok: false,
      status: 0,
      message: `upstream unreachable: ${(err as Error).message}`,
      elapsedMs: Date.now() - started,
    };
  }
}
