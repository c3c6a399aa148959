import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { admitModel, nextChannel, type ChannelChoice } from './admit.js';
import { attemptChannel } from './attempt.js';
import {
  affinityFor,
  affinityLogInfo,
  affinityServed,
  pinFailed,
  pinnedAttempt,
  type CallAffinity,
} from './affinity-step.js';
import { autoRoute, holdPrice, nextAutoChannel, routeGroup, type AutoRoute } from './auto-group.js';
import { observerOf, type CallObserver } from '../../observability/relay-observer.js';
import { promptContent } from './chat-content.js';
import { authenticate, type Identified } from '../entry/authenticate.js';
import { tagCall } from '../entry/call-tags.js';
import { RelayError } from './errors.js';
import type { Hold, ReserveTarget } from '../../accounting/ledger.js';
import { forRequest, scaledPrice, type ResolvedPrice } from '../billing/price.js';
import { countSuccess, tokensEstimate } from '../limits/request-limits.js';
import { admitChannel, settleAdmission, type RateAdmission } from '../limits/admission.js';
import { enterCall } from '../limits/concurrency.js';
import { checkPrompt } from './sensitive.js';
import { answerFromCache, storeAnswer } from '../cache/answer.js';
import type { CacheMatch } from '../cache/response-cache.js';
import type { RelaySettings } from './settings.js';
import type { RelayRequest } from '../entry/request.js';
import { writeRelayError } from './respond.js';
import { attemptFailure, type AttemptFailure } from '../upstream/message.js';
import type { OutputBudget } from '../billing/output-hold.js';
import { holdBudget, holdFor } from './call-hold.js';
import { fallBack, isContextLengthRefusal, type FallbackRoute } from './fallback.js';
import type { RelayContext } from './services.js';
import { newRequestId, REQUEST_ID_HEADER, settleCall } from '../billing/settle.js';
import type { CallIdentity } from '../billing/log-row.js';
import { estimatePromptTokens } from './token-count.js';
import { presetHeader } from '../../lib/gateway-response.js';
import { AttemptReceipt, billedUsage } from '../billing/receipt.js';
import type { AttemptResult, InboundCall } from './types.js';
import {
  journalCall,
  logUnserved,
  GIVE_UP,
  PASSED_OVER,
  refundHold,
  SERVED,
  tryChannels,
  UNUSABLE,
  upstreamFailed,
  type AttemptsState,
  type ChannelAttempts,
} from './lifecycle.js';

/**
 * A relay call in any client format: authenticate → select channel → reserve quota → forward via adaptor →
 * stream back → settle → log. The stages are the call lifecycle's (lifecycle.ts); this surface supplies its hold
 * (holdFor), its attempt (CHAT_ATTEMPTS) and its settlement on the usage. Upstream failures before any byte
 * reached the caller move to another channel.
 */
export async function relayCall(
  ctx: RelayContext,
  req: RelayRequest,
  res: ServerResponse,
  parse: (req: RelayRequest) => InboundCall | Promise<InboundCall>,
  identify: (req: RelayRequest) => Identified | Promise<Identified> = (r) => authenticate(r, ctx.relay.tokens),
): Promise<void> {
  const started = Date.now();
  // The hot path's caller is known and most bodies parse synchronously: awaited only when they are promises.
  const identifying = identify(req);
  const identified = identifying instanceof Promise ? await identifying : identifying;
  const obs = observerOf(res);
  obs?.authenticated();
  const parsing = parse(req);
  const call = parsing instanceof Promise ? await parsing : parsing;
  // A tagged call's view of its token carries the tags (its logs, its tag budgets); an untagged call's is the token.
  const auth = tagCall(identified.auth, req.headers, call.body);
  // An `auto` token's call is admitted in the first auto group serving the model (auto-group.ts).
  const auto = autoRoute(ctx, auth, call.model);
  const group = auto ? routeGroup(auto) : identified.group;
  const settings = ctx.relay.settings.get();
  // The call's place under its token's and user's concurrency limits, given back when the response closes.
  const entering = enterCall(ctx, settings.concurrency, auth, res);
  if (entering) await entering;
  checkPrompt(ctx.options, settings, call, group, ctx.log);
  // The prompt's estimate, made once: the reservation, TPM limits and channels' max_input_tokens all read it.
  const prompt = estimatePromptTokens(call.body, call.bytes);
  const estimate = tokensEstimate(call, prompt);
  const admitted = await admitModel(ctx, auth, group, call.model, estimate, prompt, 'unserved-or-disabled');
  const { limits, rate } = admitted;
  // An expression price reads the call's headers and body (its param() and header() rules).
  const price = forRequest(admitted.price, { headers: req.headers, body: call.body });
  if (rate) for (const [k, v] of Object.entries(rate.headers)) presetHeader(res, k, v!);
  // The response cache (relay/cache): a hit is answered here, with no upstream call; a miss is stored once served.
  const cache = ctx.relay.responseCache.match(auth, group, call);
  if (cache && (await answerFromCache(ctx, cache, { auth, group, call, price, admitted, ip: req.ip, started, res })))
    return;

  const { target, hold, plan } = await holdFor(
    ctx,
    auth,
    call,
    // An auto call that may move to a dearer group is held at that group's price (auto-group.ts).
    scaledPrice((auto ? holdPrice(ctx, auth, auto, call.model, price) : price).price, call.units),
    prompt,
    settings,
  ).catch((err: unknown) => {
    settleAdmission(ctx, rate, 0);
    throw err;
  });
  const reserved = hold.amount;
  // The output the hold affords is what it holds beyond the declared tools' quota.
  const budget = holdBudget(plan, reserved, settings.quotaPerUnit);
  const requestId = newRequestId();
  presetHeader(res, REQUEST_ID_HEADER, requestId);
  obs?.reservedQuota(reserved, requestId);

  let settled = false;
  let s: CallState | undefined;
  try {
    await journalCall(ctx, {
      requestId,
      auth,
      group,
      model: call.model,
      stream: call.stream,
      ip: req.ip,
      started,
      target,
      reserved,
    });
    s = {
      requestId,
      call,
      started,
      auth,
      group,
      model: call.model,
      stream: call.stream,
      ip: req.ip,
      price,
      target,
      hold,
      budget,
      settings,
      rate,
      estimate,
      prompt,
      res,
      obs,
      cancel: undefined,
      cancelled: false,
      tried: new Set<number>(),
      usedChannels: [],
      last: undefined,
      overLimit: undefined,
      auto,
      firstAttempt: 0,
      cache,
      affinity: undefined,
      contextLength: false,
      fallback: undefined,
    };
    // A session a rule recognises goes first to the channel and key that served it (core/routing/affinity.ts).
    const affinity = auto ? undefined : affinityFor(ctx, req, call, auth, group, prompt);
    if (affinity) s.affinity = await affinity;
    watchCancel(s);
    settled = await tryChannels(ctx, CHAT_ATTEMPTS, s, settings.retry);
    // The model's channels exhausted: its fallback models in turn (fallback.ts), each with a fresh retry budget.
    while (!settled && (await fallBack(ctx, s, settings.fallbacks))) {
      s.auto = s.affinity = s.cache = undefined;
      // The journal's bill follows a hold grown for the fallback, before anything goes upstream.
      if (s.hold.amount > reserved) await journalCall(ctx, { ...s, reserved: s.hold.amount }, true);
      settled = await tryChannels(ctx, CHAT_ATTEMPTS, s, settings.retry);
    }
    if (settled) countSuccess(ctx.counters, limits);
    else answerUnserved(ctx, s);
  } finally {
    // Whatever happened, a reservation never outlives its request: unsettled means refunded.
    if (!settled) {
      obs?.released();
      settleAdmission(ctx, rate, 0);
      await refundHold(ctx, target, s?.hold ?? hold, requestId);
    }
  }
}

/** A chat (or other HTTP surface) call on its way through the channel loop. */
interface CallState extends CallIdentity, AttemptsState<AttemptFailure> {
  call: InboundCall;
  started: number;
  price: ResolvedPrice;
  target: ReserveTarget;
  hold: Hold;
  /** The output the hold affords: the cap sent upstream when the balance binds, the meter's limit. */
  budget: OutputBudget;
  settings: RelaySettings;
  /** The call's count under token/user/group limits; `estimate` its tokens reserved there and per channel. */
  rate: RateAdmission | undefined;
  estimate: number;
  /** The prompt's estimate: channels whose max_input_tokens is below it are passed over. */
  prompt: number;
  res: ServerResponse;
  obs: CallObserver | undefined;
  /** A plain emitter is the cancel signal undici listens to ('abort'); cheaper than an AbortController per call. */
  cancel: EventEmitter | undefined;
  /** The caller hung up before the answer: no further attempt. */
  cancelled: boolean;
  /** A channel over its own RPM/TPM is passed over like an unavailable one; the refusal stands if none is left. */
  overLimit: RelayError | undefined;
  /** An `auto` token's route through the AutoGroups (group and price follow it); undefined for any other token. */
  auto: AutoRoute | undefined;
  /** The response cache applies (relay/cache): the answer, captured on a miss, is stored once settled. */
  cache: CacheMatch | undefined;
  /** The call's affinity session and its usable pin (undefined: no rule recognised the call). */
  affinity: CallAffinity | undefined;
  /** The last failed attempt was a 400 refusing the prompt's length (a reason to fall back). */
  contextLength: boolean;
  /** The call moved to a fallback model: from which, why, and where in the list (fallback.ts). */
  fallback: FallbackRoute | undefined;
}

/** The caller hanging up cancels the upstream call and any further attempt. */
function watchCancel(s: CallState): void {
  const { res } = s;
  const cancel = (s.cancel = new EventEmitter());
  res.on('close', () => {
    if (res.writableFinished) return;
    s.cancelled = true;
    cancel.emit('abort');
  });
}

/** No channel relayed the call: a channel over its own limits refuses it, else the last failure is logged and told. */
function answerUnserved(ctx: RelayContext, s: CallState): void {
  if (!s.last && s.overLimit) throw s.overLimit;
  const shown = logUnserved(ctx, s, s, s.settings.hideUpstreamError, 'relay: upstream failed');
  const last = s.last!;
  const mappedStatus = Number(last.channel?.statusCodeMapping[String(last.status)] ?? last.status) || 502;
  writeRelayError(
    s.res,
    new RelayError(mappedStatus >= 400 ? mappedStatus : 502, shown, 'upstream_error', 'upstream_error'),
    s.call.format,
  );
}

/** The chat surface's part of the channel loop: one attempt forwarded through the adaptor, settled on its usage. */
const CHAT_ATTEMPTS: ChannelAttempts<CallState> = {
  stopped: (s) => s.cancelled,
  next(ctx, s, attempt) {
    s.obs?.picking();
    const pinned = pinnedAttempt(s.affinity, s.tried);
    if (pinned) return pinned;
    if (s.auto) return nextAutoChannel(ctx, s, s.auto, attempt);
    return nextChannel(ctx, s.group, s.model, s.tried, attempt, s.prompt);
  },
  attempt: attemptOn,
};

/** One attempt on a chosen channel: counted under the channel's limits, forwarded, then settled or failed. */
async function attemptOn(ctx: RelayContext, s: CallState, choice: ChannelChoice): Promise<number> {
  const { ch, keyIndex, mapped } = choice;
  if (keyIndex === undefined || 'error' in mapped) {
    const message = 'error' in mapped ? mapped.error : 'channel has no usable key';
    s.last = attemptFailure(503, message, ch);
    return UNUSABLE;
  }
  const counting = admitChannel(ctx, ch, s.estimate);
  const held = counting && (await counting);
  if (held instanceof RelayError) {
    s.overLimit = held;
    return PASSED_OVER;
  }
  const { call, res, obs } = s;
  obs?.attempting(ch.id, s.model);
  // Billing and logs know the mapped model; the prefix is only the name on the wire.
  const billed = { price: s.price, model: s.model, upstreamModel: mapped.model, group: s.group };
  const receipt = new AttemptReceipt(ctx, call, billed, call.usageCost === true, s.hold.amount);
  let result: AttemptResult;
  try {
    result = await attemptChannel(ctx, {
      call,
      channel: ch,
      key: ch.keys[keyIndex]!,
      upstreamModel: mapped.upstream,
      res,
      signal: s.cancel!,
      started: s.started,
      captureAnswer: s.settings.logContent,
      budget: s.budget,
      receipt,
    });
  } catch (err) {
    // A refusal of the request itself (it cannot be converted) is the caller's: no retry, no channel blamed.
    if (res.headersSent || err instanceof RelayError) {
      settleAdmission(ctx, held, 0);
      throw err;
    }
    result = { kind: 'failed', status: 0, message: `upstream unreachable: ${(err as Error).message}`, body: '' };
  }
  obs?.attempted(result);
  if (result.kind !== 'relayed') {
    settleAdmission(ctx, held, 0);
    s.contextLength = result.status === 400 && isContextLengthRefusal(result.body || result.message);
    const status = upstreamFailed(ctx, s, choice, result.status, result.message);
    return pinFailed(ctx, s.affinity, choice) ? GIVE_UP : status;
  }
  // A plain answer's receipt already read its usage (a prompt counted once, not twice).
  const usage = receipt.issuedFor === result ? receipt.issuedUsage! : billedUsage(result, call);
  settleAdmission(ctx, held, usage.promptTokens + usage.completionTokens);
  settleAdmission(ctx, s.rate, usage.promptTokens + usage.completionTokens);
  affinityServed(ctx, s.affinity, choice, usage, mapped.model);
  // LogChatContentEnabled off: no text is kept on the way (nothing would log it without consume logs either).
  const content = s.settings.logContent ? { input: promptContent(call), output: result.output } : undefined;
  obs?.settling();
  const record = {
    requestId: s.requestId,
    auth: s.auth,
    group: s.group,
    model: s.model,
    upstreamModel: mapped.model,
    stream: s.stream,
    ip: s.ip,
    started: s.started,
    firstByteMs: result.firstByteMs,
    channel: ch,
    usedChannels: s.usedChannels,
    price: s.price,
    usage,
    target: s.target,
    hold: s.hold,
    content,
    callId: s.requestId,
    adminInfo: affinityLogInfo(s.affinity, choice),
    fallback: s.fallback,
  };
  // The bill the caller was told (its cost receipt) is the one charged; else it is computed now, the same way.
  const charged = await settleCall(ctx, record, result.receipted ? receipt.issued : undefined);
  if (s.cache) storeAnswer(ctx, s.cache, result, usage, s.budget, s.model);
  obs?.settled(charged);
  return SERVED;
}
