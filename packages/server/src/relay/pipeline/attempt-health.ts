import { outcomeOfStatus } from '../../core/routing/breaker.js';
import type { ChannelBreakers } from '../../core/routing/breakers.js';
import { RelayError } from './errors.js';
import type { AttemptResult, ChannelAttempt } from './types.js';

/** The caller hung up before the answer: the attempt was cut on our side, which says nothing of the upstream. */
const callerGone = (a: ChannelAttempt) => a.res.destroyed && !a.res.writableFinished;

/**
 * Runs one upstream attempt with its channel's (and key's) breaker told: the half-open probe is out when it
 * starts; an answer counts as a success (latency: to the upstream's first byte), no answer, a timeout, 429 or
 * 5xx as a failure; a refusal of the caller's own request, or an attempt cut because the caller left, decides
 * nothing.
 */
export async function withBreaker(
  breakers: ChannelBreakers,
  a: ChannelAttempt,
  run: () => Promise<AttemptResult>,
): Promise<AttemptResult> {
  const { channel: ch } = a;
  const index = ch.multiKey ? ch.keys.indexOf(a.key) : -1;
  const keyIndex = index >= 0 ? index : undefined;
  const startedAt = Date.now();
  breakers.picked(ch.id, keyIndex);
  let result: AttemptResult;
  try {
    result = await run();
  } catch (err) {
    breakers.record(ch.id, keyIndex, err instanceof RelayError || callerGone(a) ? 'neutral' : 'failure', NaN);
    throw err;
  }
  if (result.kind === 'relayed')
    breakers.record(ch.id, keyIndex, 'success', Math.max(0, a.started + result.firstByteMs - startedAt));
  else breakers.record(ch.id, keyIndex, callerGone(a) ? 'neutral' : outcomeOfStatus(result.status), NaN);
  return result;
}
