import type { Hold, ReserveTarget } from '../../accounting/ledger.js';
import type { CallIdentity } from '../billing/log-row.js';
import { logRelayError, unsettledCallRecord } from '../billing/settle.js';
import { attemptFailure, noChannelFailure, UPSTREAM_FAILED, type AttemptFailure } from '../upstream/message.js';
import type { ChannelChoice } from './admit.js';
import { relayErrors } from './errors.js';
import type { RetryPolicy } from './retry-policy.js';
import type { RelayContext } from './services.js';

/**
 * One call's life, the same for every surface (chat and the other HTTP surfaces in handler.ts, realtime sessions,
 * task submissions): admit (admit.ts) → hold (admit.ts reserveQuota) → journal → channel loop → settle or refund
 * → log. The journal, the loop, the refund and the log of a call no channel served are here; a surface supplies
 * its attempt on one channel (ChannelAttempts) and its own settlement, which differ: a chat call settles on its
 * usage (billing/settle.ts), a realtime session per response (surfaces/realtime-billing.ts), a task at once at its
 * fixed price (tasks/service.ts).
 */

/**
 * The journal: the call's bill at its hold is written before anything goes upstream, so a crash from here on
 * bills it once, at most that much (the settlement replaces it when it lands).
 */
export function journalCall(
  ctx: RelayContext,
  c: CallIdentity & { started: number; target: ReserveTarget; reserved: number },
  grown = false,
): Promise<void> {
  const record = unsettledCallRecord(ctx, c);
  // A hold that grew (a move to a dearer fallback model) replaces the call's line: a crash bills the larger hold.
  return grown ? ctx.relay.writer.amend(c.requestId, record) : ctx.relay.writer.begin(c.requestId, record);
}

/** The refund: a hold never outlives its call; given back in full, and its journal line (if any) closed. */
export async function refundHold(
  ctx: RelayContext,
  target: ReserveTarget,
  hold: Hold,
  callId: string | undefined,
): Promise<void> {
  await ctx.relay.ledger.settle(target, hold, 0);
  if (callId !== undefined) ctx.relay.writer.release(callId);
}

// What an attempt tells the channel loop: one of the four steps below, or else the status of a failed attempt (0: the
// upstream could not be reached), which moves to the next channel when the retry policy says so. Plain numbers, so
// an attempt's answer allocates nothing.

/** The call was served (the surface settled it, or handed it over): the loop ends. */
export const SERVED = -1;
/** The channel could not be tried (no usable key, no mapping of the model): the next one, whatever the status. */
export const UNUSABLE = -2;
/** The channel is over its own limits: passed over like an unavailable one, the attempt not counted. */
export const PASSED_OVER = -3;
/** The caller is gone: no further attempt. */
export const GIVE_UP = -4;

/** What the loop keeps of a call's attempts: the channels tried (and, in order, used) and the last failure. */
export interface AttemptsState<F> {
  tried: Set<number>;
  usedChannels: number[];
  last: F | undefined;
  /** The attempt the retry budget counts from (0; an auto call moved to its next group starts a new one). */
  firstAttempt?: number;
}

/**
 * A surface's part of the channel loop. Implemented once per surface as a module-level object: the per-call state
 * travels in `s`, so a call allocates no closures for its loop.
 */
export interface ChannelAttempts<S extends AttemptsState<unknown>> {
  /** Whether the caller left: no attempt is started after that. */
  stopped(s: S): boolean;
  /** The channel for attempt number `attempt` (recorded in `s.tried`), or undefined when none is left. */
  next(ctx: RelayContext, s: S, attempt: number): ChannelChoice | undefined;
  /** One attempt on the channel: SERVED, UNUSABLE, PASSED_OVER, GIVE_UP, or the failed status with `s.last` set. */
  attempt(ctx: RelayContext, s: S, choice: ChannelChoice): Promise<number>;
}

/** Stage 4's loop: channels tried in turn until one serves the call, the policy says stop, or none is left. */
export async function tryChannels<S extends AttemptsState<unknown>>(
  ctx: RelayContext,
  surface: ChannelAttempts<S>,
  s: S,
  policy: RetryPolicy,
): Promise<boolean> {
  for (let attempt = 0; attempt - (s.firstAttempt ?? 0) < policy.attempts && !surface.stopped(s); attempt++) {
    const choice = surface.next(ctx, s, attempt);
    if (!choice) break;
    s.usedChannels.push(choice.ch.id);
    const step = await surface.attempt(ctx, s, choice);
    if (step === SERVED) return true;
    if (step === GIVE_UP) break;
    if (step === UNUSABLE) continue;
    if (step === PASSED_OVER) {
      s.usedChannels.pop();
      attempt--;
      continue;
    }
    if (!policy.retryable(step)) break;
  }
  return false;
}

const ignore = (): undefined => undefined;

/**
 * A failed attempt on an upstream: kept as the call's last failure and reported to channel health (auto-disable);
 * returns its status for the loop.
 */
export function upstreamFailed(
  ctx: RelayContext,
  s: AttemptsState<AttemptFailure>,
  choice: ChannelChoice,
  status: number,
  message: string,
): number {
  s.last = attemptFailure(status, message, choice.ch);
  ctx.channels?.reportUpstreamError(choice.ch, choice.keyIndex!, status, message).catch(ignore);
  return status;
}

/**
 * The end of a call no channel served: its last failure (none tried: no channel), warned with its detail when the
 * caller is shown less, and logged (error log). Returns the message the caller is shown.
 */
export function logUnserved(
  ctx: RelayContext,
  c: CallIdentity & { started: number },
  s: AttemptsState<AttemptFailure>,
  hideUpstreamError: boolean,
  warning: string,
): string {
  const last = (s.last ??= noChannelFailure(relayErrors.noChannel(c.group, c.model).message));
  const shown = hideUpstreamError ? UPSTREAM_FAILED : last.shown;
  if (last.message !== shown)
    ctx.log.warn(
      { requestId: c.requestId, channel: last.channel?.id, status: last.status, detail: last.message },
      warning,
    );
  logRelayError(ctx, {
    auth: c.auth,
    group: c.group,
    model: c.model,
    ip: c.ip,
    requestId: c.requestId,
    started: c.started,
    stream: c.stream,
    status: last.status,
    message: shown,
    detail: last.message,
    channel: last.channel,
    usedChannels: s.usedChannels,
  });
  return shown;
}
