import { outcomeOfStatus } from '../../core/routing/breaker.js';
import type { ChannelBreakers } from '../../core/routing/breakers.js';
import type { ChannelLoad } from '../../core/routing/channel-load.js';
import { RelayError } from './errors.js';
import type { AttemptResult, ChannelAttempt } from './types.js';

/** The caller hung up before the answer: the attempt was cut on our side, which says nothing of the upstream. */
const callerGone = (a: ChannelAttempt) => a.res.destroyed && !a.res.writableFinished;

/**
 * Runs one upstream attempt with its channel's (and key's) breaker told: the half-open probe is out when it
 * starts; an answer counts as a success (latency: to the upstream's first byte), no answer, a timeout, 429 or
 * 5xx as a failure; a refusal of the caller's own request, or an attempt cut because the caller left, decides
 * nothing. The routing strategies' `load` counts the attempt in flight until it ends and takes the same latency
 * (a failure as a slow sample, a neutral end as none).
 */
export async function withBreaker(
  breakers: ChannelBreakers,
  a: ChannelAttempt,
  run: () => Promise<AttemptResult>,
  load: ChannelLoad,
): Promise<AttemptResult> {
  const { channel: ch } = a;
  const index = ch.multiKey ? ch.keys.indexOf(a.key) : -1;
  const keyIndex = index >= 0 ? index : undefined;
  const startedAt = Date.now();
  breakers.picked(ch.id, keyIndex);
  load.started(ch.id);
  let result: AttemptResult;
  try {
    result = await run();
  } catch (err) {
    const outcome = err instanceof RelayError || callerGone(a) ? 'neutral' : 'failure';
    breakers.record(ch.id, keyIndex, outcome, NaN);
    load.finished(ch.id, NaN, outcome === 'failure' ? Date.now() - startedAt : NaN);
    throw err;
  }
  if (result.kind === 'relayed') {
    const firstByteMs = Math.max(0, a.started + result.firstByteMs - startedAt);
    breakers.record(ch.id, keyIndex, 'success', firstByteMs);
    load.finished(ch.id, firstByteMs);
  } else {
    const outcome = callerGone(a) ? 'neutral' : outcomeOfStatus(result.status);
    breakers.record(ch.id, keyIndex, outcome, NaN);
    load.finished(ch.id, NaN, outcome === 'failure' ? Date.now() - startedAt : NaN);
  }
  return result;
}
