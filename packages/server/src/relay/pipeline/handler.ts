import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { ChannelStatus, type Price } from '@tollway/shared';
import { admitModel, nextChannel, reserveQuota } from './admit.js';
import { attemptChannel } from './attempt.js';
import { observerOf } from '../../observability/relay-observer.js';
import { promptContent } from './chat-content.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { authenticate, type Identified } from '../entry/authenticate.js';
import { RelayError, relayErrors } from './errors.js';
import type { Hold } from '../../accounting/ledger.js';
import { resolvePrice, scaledPrice } from '../billing/price.js';
import { countSuccess, tokensEstimate } from '../limits/request-limits.js';
import { admitChannel, settleAdmission, type RateAdmission } from '../limits/admission.js';
import { checkPrompt } from './sensitive.js';
import type { RelaySettings } from './settings.js';
import type { RelayRequest } from '../entry/request.js';
import { writeRelayError } from './respond.js';
import { attemptFailure, noChannelFailure, UPSTREAM_FAILED, type AttemptFailure } from '../upstream/message.js';
import { budgetOf, EXACT_COUNT_MAX_BYTES, planHold, promptCeiling, type OutputBudget } from '../billing/output-hold.js';
import type { RelayContext } from './services.js';
import { logRelayError, newRequestId, REQUEST_ID_HEADER, settleCall, unsettledCallRecord } from '../billing/settle.js';
import { countBodyTokens, countPromptTokens, estimatePromptTokens } from './token-count.js';
import type { CallUsage } from '../billing/usage.js';
import type { AttemptResult, InboundCall } from './types.js';

/**
 * A relay call in any client format: authenticate → select channel → reserve quota → forward via adaptor →
 * stream back → settle → log. Upstream failures before any byte reached the caller move to another channel.
 */
export async function relayCall(
  ctx: RelayContext,
  req: RelayRequest,
  res: ServerResponse,
  parse: (req: RelayRequest) => InboundCall | Promise<InboundCall>,
  identify: (req: RelayRequest) => Identified | Promise<Identified> = (r) => authenticate(r, ctx.relay.tokens),
): Promise<void> {
  const started = Date.now();
  const { auth, group } = await identify(req);
  const obs = observerOf(res);
  obs?.authenticated();
  const call = await parse(req);
  const settings = ctx.relay.settings.get();
  checkPrompt(ctx.options, settings, call, group, ctx.log);
  let admitted: Awaited<ReturnType<typeof admitModel>>;
  // The prompt's estimate, made once: the reservation, TPM limits and channels' max_input_tokens all read it.
  const prompt = estimatePromptTokens(call.body, call.bytes);
  const estimate = tokensEstimate(call, prompt);
  try {
    admitted = await admitModel(ctx, auth, group, call.model, estimate, prompt);
  } catch (err) {
    throw unservedOrDisabled(ctx, err, group, call.model);
  }
  const { price, limits, rate } = admitted;
  if (rate) for (const [k, v] of Object.entries(rate.headers)) res.setHeader(k, v!);

  const { target, hold, plan } = await holdFor(
    ctx,
    auth,
    call,
    scaledPrice(price.price, call.units),
    prompt,
    settings,
  ).catch((err: unknown) => {
    settleAdmission(ctx, rate, 0);
    throw err;
  });
  const reserved = hold.amount;
  const budget = budgetOf(plan, reserved, settings.quotaPerUnit);
  const requestId = newRequestId();
  res.setHeader(REQUEST_ID_HEADER, requestId);
  obs?.reservedQuota(reserved, requestId);

  let settled = false;
  try {
    // The call's bill at its reservation is in the journal before anything goes upstream: a crash from here on
    // bills it once, at most that much (the settlement replaces it when it lands).
    await ctx.relay.writer.begin(
      requestId,
      unsettledCallRecord(ctx, {
        requestId,
        auth,
        group,
        model: call.model,
        stream: call.stream,
        ip: req.ip,
        started,
        target,
        reserved,
      }),
    );
    settled = await attempts(ctx, req, res, {
      requestId,
      call,
      started,
      auth,
      group,
      price,
      target,
      hold,
      budget,
      settings,
      rate,
      estimate,
      prompt,
    });
    if (settled) countSuccess(ctx.counters, limits);
  } finally {
    // Whatever happened, a reservation never outlives its request: unsettled means refunded.
    if (!settled) {
      obs?.released();
      settleAdmission(ctx, rate, 0);
      await ctx.relay.ledger.settle(target, hold, 0);
      ctx.relay.writer.release(requestId);
    }
  }
}

/**
 * Stage 3, the hold: up to the call's cost at its prompt's ceiling (a token per byte of text), at least its cost at
 * the estimate. A hold the balance kept below the ceiling's cost is planned again on the prompt counted (bodies up
 * to EXACT_COUNT_MAX_BYTES; a larger one must hold its ceiling), so neither the clamp nor the charge rests on the
 * estimate. Counting happens only when the balance binds: never on the hot path of a funded caller.
 */
async function holdFor(
  ctx: RelayContext,
  auth: TokenAuth,
  call: InboundCall,
  price: Price,
  estimate: number,
  settings: RelaySettings,
) {
  const ceiling = promptCeiling(call, estimate);
  const plan = planHold(price, estimate, call, settings.quotaPerUnit, settings.preConsumedQuota, ceiling);
  const first = await reserveQuota(ctx, auth, plan.amount, plan.minimum);
  if (first.hold.amount >= plan.amount) return { ...first, plan };
  const counted = call.bytes <= EXACT_COUNT_MAX_BYTES ? Math.max(estimate, countBodyTokens(call.body)) : ceiling;
  const exact = planHold(price, counted, call, settings.quotaPerUnit, settings.preConsumedQuota, counted);
  if (first.hold.amount >= exact.minimum) return { ...first, plan: exact };
  // The balance held the estimate's cost but not the prompt's: given back, and asked again for what the call needs.
  await ctx.relay.ledger.settle(first.target, first.hold, 0);
  return { ...(await reserveQuota(ctx, auth, exact.amount, exact.minimum)), plan: exact };
}

/**
 * Which refusal a model nobody can call now gets: not served in the group at all → 404 model_not_found (also for
 * an unpriced name no channel has: most likely a typo); served only by disabled channels → 503, worth a later
 * retry (unless it is unpriced: re-enabling would not help); served but unpriced → the price error as it is.
 */
export function unservedOrDisabled(ctx: RelayContext, err: unknown, group: string, model: string): unknown {
  if (!(err instanceof RelayError)) return err;
  const unpriced = err.code === 'model_price_not_set';
  if (!unpriced && err.code !== 'model_not_found') return err;
  if (unpriced && ctx.channelCache.hasModel(group, model)) return err;
  const disabled = ctx.channelCache
    .all()
    .some((ch) => ch.status !== ChannelStatus.Enabled && ch.groups.includes(group) && ch.models.includes(model));
  if (unpriced) return disabled ? err : relayErrors.noChannel(group, model);
  return disabled ? relayErrors.channelsUnavailable(group, model) : err;
}

interface CallState {
  requestId: string;
  call: InboundCall;
  started: number;
  auth: Awaited<ReturnType<typeof authenticate>>['auth'];
  group: string;
  price: NonNullable<ReturnType<typeof resolvePrice>>;
  target: { userId: number; tokenId: number | undefined };
  hold: Hold;
  /** The output the hold affords: the cap sent upstream when the balance binds, the meter's limit. */
  budget: OutputBudget;
  settings: RelaySettings;
  /** The call's count under token/user/group limits; `estimate` its tokens reserved there and per channel. */
  rate: RateAdmission | undefined;
  estimate: number;
  /** The prompt's estimate: channels whose max_input_tokens is below it are passed over. */
  prompt: number;
}

/** Tries channels until one relays the call; returns true when the call was settled (charged). */
async function attempts(ctx: RelayContext, req: RelayRequest, res: ServerResponse, s: CallState): Promise<boolean> {
  const { requestId, call, started, auth, group, price, target, hold, settings } = s;
  const { model, stream } = call;
  const obs = observerOf(res);
  // A plain emitter is the cancel signal undici listens to ('abort'); cheaper than an AbortController per call.
  const cancel = new EventEmitter();
  let cancelled = false;
  res.on('close', () => {
    if (res.writableFinished) return;
    cancelled = true;
    cancel.emit('abort');
  });
  const policy = settings.retry;
  const tried = new Set<number>();
  const usedChannels: number[] = [];
  // LogChatContentEnabled off: no text is kept on the way (nothing would log it without consume logs either).
  const logContent = settings.logContent;
  let last: AttemptFailure | undefined;
  // A channel over its own RPM/TPM is passed over like an unavailable one; the refusal stands if none is left.
  let overLimit: RelayError | undefined;
  for (let attempt = 0; attempt < policy.attempts && !cancelled; attempt++) {
    obs?.picking();
    const next = nextChannel(ctx, group, model, tried, attempt, s.prompt);
    if (!next) break;
    const { ch, keyIndex, mapped } = next;
    usedChannels.push(ch.id);
    if (keyIndex === undefined || 'error' in mapped) {
      const message = 'error' in mapped ? mapped.error : 'channel has no usable key';
      last = attemptFailure(503, message, ch);
      continue;
    }
    const counting = admitChannel(ctx, ch, s.estimate);
    const held = counting && (await counting);
    if (held instanceof RelayError) {
      overLimit = held;
      usedChannels.pop();
      attempt--;
      continue;
    }
    obs?.attempting(ch.id, model);
    let result: AttemptResult;
    try {
      result = await attemptChannel(ctx, {
        call,
        channel: ch,
        key: ch.keys[keyIndex]!,
        upstreamModel: mapped.upstream,
        res,
        signal: cancel,
        started,
        captureAnswer: logContent,
        budget: s.budget,
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
    if (result.kind === 'relayed') {
      const usage = billedUsage(result, call);
      settleAdmission(ctx, held, usage.promptTokens + usage.completionTokens);
      settleAdmission(ctx, s.rate, usage.promptTokens + usage.completionTokens);
      const content = logContent ? { input: promptContent(call), output: result.output } : undefined;
      obs?.settling();
      const charged = await settleCall(ctx, {
        requestId,
        auth,
        group,
        model,
        // Billing and logs know the mapped model; the prefix is only the name on the wire.
        upstreamModel: mapped.model,
        stream,
        ip: req.ip,
        started,
        firstByteMs: result.firstByteMs,
        channel: ch,
        usedChannels,
        price,
        usage,
        target,
        hold,
        content,
        callId: requestId,
      });
      obs?.settled(charged);
      return true;
    }
    settleAdmission(ctx, held, 0);
    last = attemptFailure(result.status, result.message, ch);
    ctx.channels?.reportUpstreamError(ch, keyIndex, result.status, result.message).catch(() => undefined);
    if (!policy.retryable(result.status)) break;
  }
  if (!last && overLimit) throw overLimit;
  last ??= noChannelFailure(relayErrors.noChannel(group, model).message);
  const shown = settings.hideUpstreamError ? UPSTREAM_FAILED : last.shown;
  if (last.message !== shown)
    ctx.log.warn(
      { requestId, channel: last.channel?.id, status: last.status, detail: last.message },
      'relay: upstream failed',
    );
  logRelayError(ctx, {
    auth,
    group,
    model,
    ip: req.ip,
    requestId,
    started,
    stream,
    status: last.status,
    message: shown,
    detail: last.message,
    channel: last.channel,
    usedChannels,
  });
  const mappedStatus = Number(last.channel?.statusCodeMapping[String(last.status)] ?? last.status) || 502;
  writeRelayError(
    res,
    new RelayError(mappedStatus >= 400 ? mappedStatus : 502, shown, 'upstream_error', 'upstream_error'),
    call.format,
  );
  return false;
}

/**
 * The usage a relayed attempt is billed on: the upstream's when it reported it and the answer was whole; else our
 * own count of what was delivered (never less than the upstream's count), with the prompt as the upstream reported
 * it or as counted.
 */
function billedUsage(result: Extract<AttemptResult, { kind: 'relayed' }>, call: InboundCall): CallUsage {
  const u = result.usage;
  // Our count is made only where the usage is missing, cut short or says no output: it wins when it is more.
  if (u && !result.cut && result.countedCompletion <= u.completionTokens) return u;
  return {
    // A usage that names no prompt (an upstream that sent an empty one) is no count of it either.
    promptTokens: u?.promptTokens || u?.cachedTokens ? u.promptTokens : countPromptTokens(call.body),
    completionTokens: Math.max(u?.completionTokens ?? 0, result.countedCompletion),
    cachedTokens: u?.cachedTokens,
    cacheCreationTokens: u?.cacheCreationTokens,
    semantic: u?.semantic,
    units: u?.units,
    reported: false,
  };
}
