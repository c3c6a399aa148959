import { outcomeOfStatus } from '../core/routing/breaker.js';
import type { ChannelBreakers } from '../core/routing/breakers.js';
import { RelayError } from './errors.js';
import type { AttemptResult, ChannelAttempt } from './types.js';

/**
 * Runs one upstream attempt with its channel's (and key's) breaker told: the half-open probe is out when it
 * starts; an answer counts as a success (latency: to the upstream's first byte), no answer, a timeout, 429 or
 * 5xx as a failure; a refusal of the caller's own request decides nothing.
 */
export async function withBreaker(breakers: ChannelBreakers, a: ChannelAttempt, run: () => Promise<AttemptResult>): Promise<AttemptResult> {
  const { channel: ch } = a;
  const index = ch.multiKey ? ch.keys.indexOf(a.key) : -1;
  const keyIndex = index >= 0 ? index : undefined;
  const startedAt = Date.now();
  breakers.picked(ch.id, keyIndex);
  let result: AttemptResult;
  try {
    result = await run();
  } catch (err) {
    breakers.record(ch.id, keyIndex, err instanceof RelayError ? 'neutral' : 'failure', NaN);
    throw err;
  }
  if (result.kind === 'relayed') breakers.record(ch.id, keyIndex, 'success', Math.max(0, a.started + result.firstByteMs - startedAt));
  else breakers.record(ch.id, keyIndex, outcomeOfStatus(result.status), NaN);
  return result;
}
