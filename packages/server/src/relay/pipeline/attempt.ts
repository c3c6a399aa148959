import { withBreaker } from './attempt-health.js';
import { clientHeaders } from '../entry/client-headers.js';
import { forwardOpenAIChannel } from '../upstream/forward.js';
import { forwardConverted } from '../upstream/forward-convert.js';
import { unconvertible } from './errors.js';
import { formatFor } from '../providers/formats.js';
import { openAIChat } from '../providers/openai/chat.js';
import { capOutput } from '../providers/output-cap.js';
import { claudeDefaultMaxTokens } from '../providers/anthropic/adaptor.js';
import { formatSettings } from '../providers/format-settings.js';
import { adaptorFor } from '../providers/registry.js';
import { prepareRequest } from '../providers/prepare.js';
import { openAIPaths } from '../providers/openai/request.js';
import type { RelayContext } from './services.js';
import { dropDisabledFields } from '../../core/routing/channel-settings.js';
import { withHeaderOverride } from '../upstream/header-override.js';
import { countTextTokens } from './token-count.js';
import type { AttemptResult, ChannelAttempt } from './types.js';

type Json = Record<string, unknown>;

/** `?beta=true` in the caller's URL (new-api's test: the query's `beta` is "true"). */
const askedBeta = (url: string | undefined): boolean => !!url && /[?&]beta=true(&|$)/.test(url);

const applyOverride = (body: Json, override: Record<string, unknown>): Json => {
  for (const [k, v] of Object.entries(override)) {
    if (v === null) delete body[k];
    else body[k] = v;
  }
  return body;
};

/** Stage 4, with the channel's breaker told how the attempt went. */
export function attemptChannel(ctx: RelayContext, a: ChannelAttempt): Promise<AttemptResult> {
  return withBreaker(ctx.breakers, a, () => forwardAttempt(ctx, a), ctx.channelCache.load);
}

/**
 * Stage 4 — forward via the channel's adaptor: the same format is passed through (only the model, system
 * prompt and overrides change); any other pair goes through the IR, request and answer.
 */
function forwardAttempt(ctx: RelayContext, a: ChannelAttempt, renewed = false): Promise<AttemptResult> {
  const { call, channel: ch, upstreamModel } = a;
  const adaptor = adaptorFor(ch.type, upstreamModel);
  if (!adaptor)
    return Promise.resolve({
      kind: 'failed',
      status: 501,
      message: `channel type ${ch.type} is not supported by this version`,
      body: '',
    });
  // The OpenAI pass-through (most calls) hands back its forward's own promise: no async wrapper around it.
  if (!call.surface && adaptor.format === 'openai' && call.format === openAIChat)
    return forwardOpenAIChannel(ctx, a, adaptor, call.openaiEndpoint ?? 'chat');
  return forwardOther(ctx, a, adaptor, renewed);
}

/** forwardAttempt for a surface's call, or a call whose format the channel's adaptor does not speak. */
async function forwardOther(
  ctx: RelayContext,
  a: ChannelAttempt,
  adaptor: NonNullable<ReturnType<typeof adaptorFor>>,
  renewed: boolean,
): Promise<AttemptResult> {
  const { call, channel: ch, upstreamModel, res } = a;
  if (call.surface)
    return call.surface.forward({
      ctx,
      channel: ch,
      key: a.key,
      model: upstreamModel,
      adaptor,
      res,
      signal: a.signal,
      started: a.started,
      receipt: a.receipt,
    });
  const endpoint = call.openaiEndpoint ?? 'chat';
  if (adaptor.format === 'openai' && call.format === openAIChat) return forwardOpenAIChannel(ctx, a, adaptor, endpoint);
  if (endpoint !== 'chat')
    return {
      kind: 'failed',
      status: 501,
      message: `this channel type does not serve ${openAIPaths[endpoint]}`,
      body: '',
    };

  // Claude/Gemini settings of the format the upstream speaks: the URL model loses its thinking suffix here.
  const settings = formatSettings(adaptor.format, ctx.options, upstreamModel);
  const upstreamCall = {
    channel: ch,
    key: a.key,
    model: settings.model,
    stream: call.stream,
    openaiPath: openAIPaths[endpoint],
    options: ctx.options,
    betaQuery: call.format.name === 'anthropic' && askedBeta(res.req?.url),
  };
  const target = adaptor.target(upstreamCall);
  const upstream = formatFor(adaptor.format);
  let body: Json;
  let effort: string | undefined;
  let tuned: ReturnType<typeof settings.apply>;
  // Conversion reads only the caller's body: what it cannot read is the caller's error, not the channel's.
  try {
    if (upstream.name === call.format.name) {
      body = { ...call.body };
      if (upstream.name !== 'gemini') body.model = upstreamModel;
      // Tollway's own `"usage": {"include": true}` (the cost receipt) is not sent upstream.
      if (call.usageCost) delete body.usage;
    } else {
      const ir = call.format.requestToIR(call.body);
      effort = ir.reasoning?.effort;
      ir.model = upstreamModel;
      ir.stream = call.stream;
      if (ch.systemPrompt) ir.system.unshift(ch.systemPrompt);
      if (adaptor.format === 'anthropic' && !ir.maxTokens)
        ir.maxTokens = claudeDefaultMaxTokens(ctx.options, upstreamModel);
      const cap = a.budget?.cap;
      if (cap !== undefined) ir.maxTokens = Math.min(ir.maxTokens ?? cap, cap);
      body = upstream.requestFromIR(ir);
      if (upstream.name === 'openai' && call.stream) body.stream_options = { include_usage: true };
    }
    tuned = settings.apply(body, effort);
    // The channel's settings remove fields it does not allow (service_tier…), before param_override, as new-api.
    dropDisabledFields(tuned.body, ch.callSettings);
    body = applyOverride(tuned.body, ch.paramOverride);
    // The balance binds: the upstream is told the output the hold affords (after every setting and override).
    if (a.budget?.cap !== undefined) capOutput(upstream.name, body, a.budget.cap, upstreamModel);
  } catch (err) {
    throw unconvertible(ctx.log, err);
  }
  // Object.assign, not `{ ...a, ...b }`: on Node 20 a literal that starts with a spread and then adds keys takes
  // V8's slow path (about 0.5 µs per added key, measured), which the relay would pay on every call.
  const prepared = prepareRequest(
    adaptor,
    upstreamCall,
    target.url,
    Object.assign({}, target.headers, clientHeaders(adaptor.format, res.req?.headers, target.headers), tuned.headers),
    body,
  );
  const sent = prepared instanceof Promise ? await prepared : prepared;
  if ('error' in sent) return { kind: 'failed', status: sent.error.status, message: sent.error.message, body: '' };
  // The channel's header_override goes last: it wins over the adaptor's, the caller's and the settings' headers.
  sent.headers = withHeaderOverride(sent.headers, ch, a.key, res.req?.headers);
  const answered = forwardConverted(
    adaptor.dispatcher?.(upstreamCall) ?? ctx.relay.upstream.for(ch),
    {
      request: sent,
      framer: adaptor.streamFramer?.(),
      stream: call.stream,
      upstream,
      client: call.format,
      prepareEncoder: call.format.prepareEncoder ? (s) => call.format.prepareEncoder!(s, call) : undefined,
      requestedModel: call.model,
      pingMs: call.stream ? ctx.relay.settings.get().pingMs : 0,
      captureAnswer: a.captureAnswer,
      budget: a.budget,
      receipt: a.receipt,
    },
    res,
    a.signal,
    countTextTokens,
    a.started,
  );
  // A refused credential (401) is forgotten by adaptors that cache one (ERNIE's access token), or renewed by those
  // that can (Codex's refresh token): the attempt is then sent once more with the renewed key (nothing reached the
  // client yet; only the attempt that answers is billed).
  const refused = adaptor.credentialRefused;
  if (!refused || renewed) return answered;
  return answered.then(async (r) => {
    if (r.kind !== 'failed' || r.status !== 401) return r;
    const key = await refused(upstreamCall, ctx);
    return key ? forwardAttempt(ctx, Object.assign({}, a, { key }), true) : r;
  });
}
