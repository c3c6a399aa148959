import type { FastifyReply, FastifyRequest } from 'fastify';
import { channelTypeById, computeQuota } from '@tollway/shared';
import { chooseKey, type CachedChannel } from '../modules/channels/cache.js';
import { resolveModelMapping } from '../modules/channels/parse.js';
import { authenticate } from './authenticate.js';
import { openAIErrorBody, RelayError, relayErrors } from './errors.js';
import { forwardOpenAI, type AttemptResult } from './forward.js';
import { resolvePrice } from './price.js';
import { openAIPaths, rewriteOpenAIBody, type OpenAIEndpoint } from './providers/openai/request.js';
import { checkRateLimits, countSuccess } from './rate-limits.js';
import { retryPolicy } from './retry-policy.js';
import type { RelayContext } from './services.js';
import { logRelayError, newRequestId, settleCall } from './settle.js';
import { countPromptTokens, countTextTokens, estimatePromptTokens } from './token-count.js';
import type { CallUsage } from './usage.js';

type Body = Record<string, unknown>;

function parseBody(raw: unknown): Body {
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw relayErrors.badBody('a JSON object is required');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw relayErrors.badBody(`malformed JSON (${(err as Error).message})`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw relayErrors.badBody('a JSON object is required');
  return body as Body;
}

const targets = new WeakMap<CachedChannel, { origin: string; pathPrefix: string }>();

/** Origin and path prefix of a channel's upstream, parsed once per cached channel object. */
function upstreamTarget(ch: CachedChannel): { origin: string; pathPrefix: string } {
  let t = targets.get(ch);
  if (!t) {
    const url = new URL(ch.baseUrl || channelTypeById.get(ch.type)?.baseUrl || 'https://api.openai.com');
    t = { origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, '') };
    targets.set(ch, t);
  }
  return t;
}

/** Removes the channel's secrets from a message that goes back to the caller. */
function scrub(message: string, ch: CachedChannel): string {
  let out = message;
  for (const k of ch.keys) if (k.length >= 6) out = out.split(k).join('***');
  if (ch.baseUrl) out = out.split(ch.baseUrl).join('[upstream]');
  return out;
}

export function sendRelayError(reply: FastifyReply, e: RelayError): void {
  if (reply.raw.headersSent) {
    reply.raw.end();
    return;
  }
  reply.raw.writeHead(e.status, { 'content-type': 'application/json' });
  reply.raw.end(JSON.stringify(openAIErrorBody(e)));
}

/**
 * The relay of an OpenAI-format call: authenticate → select channel → reserve quota → forward via adaptor →
 * stream back → settle → log. Upstream failures before any byte reached the caller move to another channel.
 */
export async function relayOpenAI(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, endpoint: OpenAIEndpoint): Promise<void> {
  const started = Date.now();
  reply.hijack();
  const { auth, group } = await authenticate(req, ctx.relay.tokens);
  const body = parseBody(req.body);
  const model = typeof body.model === 'string' ? body.model.trim() : '';
  if (!model) throw relayErrors.noModel();
  if (auth.modelLimits && !auth.modelLimits.has(model)) throw relayErrors.modelNotAllowed(model);
  const price = resolvePrice(ctx.options, model, group, auth.acceptUnsetRatio);
  if (!price) throw relayErrors.unpriced(model);
  if (!ctx.channelCache.hasModel(group, model)) throw relayErrors.noChannel(group, model);
  const limits = await checkRateLimits(ctx.counters, ctx.options, auth, group);

  const stream = body.stream === true;
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  const maxTokens = Number(body.max_completion_tokens ?? body.max_tokens ?? 0) || 0;
  const perUnit = ctx.options.num('QuotaPerUnit');
  const reserved =
    computeQuota(price.price, { promptTokens: estimatePromptTokens(body, (req.body as Buffer).length), completionTokens: maxTokens }, perUnit) +
    (price.price.mode === 'ratio' && price.price.modelRatio > 0 && !maxTokens ? ctx.options.num('PreConsumedQuota') : 0);
  const target = { userId: auth.userId, tokenId: auth.unlimited ? undefined : auth.tokenId };
  const reservation = await ctx.relay.ledger.reserve(target, reserved);
  if (reservation === 'user') throw relayErrors.userQuota();
  if (reservation === 'token') throw relayErrors.tokenExhausted();

  let settled = false;
  try {
    settled = await attempts(ctx, req, reply, { endpoint, started, auth, group, body, model, price, stream, includeUsage: streamOptions?.include_usage === true, target, reserved });
    if (settled) countSuccess(ctx.counters, limits);
  } finally {
    // Whatever happened, a reservation never outlives its request: unsettled means refunded.
    if (!settled) ctx.relay.ledger.settle(target, reserved, 0);
  }
}

interface CallState {
  endpoint: OpenAIEndpoint;
  started: number;
  auth: Awaited<ReturnType<typeof authenticate>>['auth'];
  group: string;
  body: Body;
  model: string;
  price: NonNullable<ReturnType<typeof resolvePrice>>;
  stream: boolean;
  includeUsage: boolean;
  target: { userId: number; tokenId: number | undefined };
  reserved: number;
}

/** Tries channels until one relays the call; returns true when the call was settled (charged). */
async function attempts(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, s: CallState): Promise<boolean> {
  const { endpoint, started, auth, group, body, model, price, stream, target, reserved } = s;
  const requestId = newRequestId();
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const policy = retryPolicy(ctx.options);
  const tried = new Set<number>();
  const usedChannels: number[] = [];
  let last: { status: number; message: string; channel?: CachedChannel } | undefined;
  for (let attempt = 0; attempt < policy.attempts && !abort.signal.aborted; attempt++) {
    const ch = ctx.channelCache.select(group, model, tried, attempt);
    if (!ch) break;
    tried.add(ch.id);
    usedChannels.push(ch.id);
    const keyIndex = chooseKey(ch);
    const mapped = resolveModelMapping(ch.modelMapping, model);
    if (keyIndex === undefined || 'error' in mapped) {
      last = { status: 503, message: 'error' in mapped ? mapped.error : 'channel has no usable key', channel: ch };
      continue;
    }
    const upstream = upstreamTarget(ch);
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${ch.keys[keyIndex]}` };
    if (ch.organization) headers['openai-organization'] = ch.organization;
    let result: AttemptResult;
    try {
      result = await forwardOpenAI(
        ctx.relay.agent,
        {
          origin: upstream.origin,
          path: `${upstream.pathPrefix}${openAIPaths[endpoint]}`,
          headers,
          body: rewriteOpenAIBody(body, { model: mapped.model, forceStreamUsage: true, systemPrompt: ch.systemPrompt, paramOverride: ch.paramOverride }, endpoint),
          stream,
          clientWantsUsage: s.includeUsage,
        },
        reply.raw,
        abort.signal,
        countTextTokens,
        started,
      );
    } catch (err) {
      if (reply.raw.headersSent) throw err;
      result = { kind: 'failed', status: 0, message: `upstream unreachable: ${(err as Error).message}`, body: '' };
    }
    if (result.kind === 'relayed') {
      const usage: CallUsage =
        result.usage && !result.cut
          ? result.usage
          : { promptTokens: result.usage?.promptTokens ?? countPromptTokens(body), completionTokens: result.usage?.completionTokens ?? result.countedCompletion, reported: false };
      settleCall(ctx, { requestId, auth, group, model, upstreamModel: mapped.model, stream, ip: req.ip, started, firstByteMs: result.firstByteMs, channel: ch, usedChannels, price, usage, target, reserved });
      return true;
    }
    last = { status: result.status, message: scrub(result.message, ch), channel: ch };
    ctx.channels?.reportUpstreamError(ch, keyIndex, result.status, result.message).catch(() => undefined);
    if (!policy.retryable(result.status)) break;
  }
  last ??= { status: 503, message: relayErrors.noChannel(group, model).message };
  logRelayError(ctx, { auth, group, model, ip: req.ip, requestId, started, stream, status: last.status, message: last.message, channel: last.channel, usedChannels });
  const mappedStatus = Number(last.channel?.statusCodeMapping[String(last.status)] ?? last.status) || 502;
  const hide = ctx.options.bool('global.hide_upstream_error_enabled');
  sendRelayError(reply, new RelayError(mappedStatus >= 400 ? mappedStatus : 502, hide ? 'upstream request failed' : last.message, 'upstream_error', 'upstream_error'));
  return false;
}
