import { describe, expect, it } from 'vitest';
import type { CachedChannel } from '../../src/core/routing/channel-cache.js';
import type { ChannelChoice } from '../../src/relay/pipeline/admit.js';
import {
  GIVE_UP,
  PASSED_OVER,
  SERVED,
  tryChannels,
  UNUSABLE,
  type AttemptsState,
  type ChannelAttempts,
} from '../../src/relay/pipeline/lifecycle.js';
import type { RelayContext } from '../../src/relay/pipeline/services.js';
import type { RetryPolicy } from '../../src/relay/pipeline/retry-policy.js';

/** A call whose attempts answer in turn from `steps`; channels are numbered 1, 2, 3, … */
interface Scripted extends AttemptsState<string> {
  steps: number[];
  channels: number;
  attempts: number[];
  gone: boolean;
}

const SCRIPTED: ChannelAttempts<Scripted> = {
  stopped: (s) => s.gone,
  next(_ctx, s, attempt): ChannelChoice | undefined {
    if (s.tried.size >= s.channels) return undefined;
    const id = s.tried.size + 1;
    s.tried.add(id);
    s.attempts.push(attempt);
    return { ch: { id } as CachedChannel, keyIndex: 0, mapped: { model: 'm', upstream: 'm' } };
  },
  attempt(_ctx, s) {
    const step = s.steps.shift()!;
    if (step >= 0) s.last = `failed ${step}`;
    return Promise.resolve(step);
  },
};

const ctx = {} as RelayContext;
const policy = (attempts: number): RetryPolicy => ({ attempts, retryable: (st) => st === 0 || st >= 500 });
const call = (steps: number[], channels = 9): Scripted => ({
  steps,
  channels,
  attempts: [],
  gone: false,
  tried: new Set(),
  usedChannels: [],
  last: undefined,
});

describe('the call lifecycle channel loop', () => {
  it('moves to the next channel on a retryable failure and ends when one serves', async () => {
    const s = call([502, 0, SERVED]);
    expect(await tryChannels(ctx, SCRIPTED, s, policy(5))).toBe(true);
    expect(s.usedChannels).toEqual([1, 2, 3]);
    expect(s.attempts).toEqual([0, 1, 2]);
  });

  it('stops at a failure the policy does not retry, keeping it as the last', async () => {
    const s = call([400, SERVED]);
    expect(await tryChannels(ctx, SCRIPTED, s, policy(5))).toBe(false);
    expect(s.usedChannels).toEqual([1]);
    expect(s.last).toBe('failed 400');
  });

  it('tries at most the policy’s attempts', async () => {
    const s = call([500, 500, 500, SERVED]);
    expect(await tryChannels(ctx, SCRIPTED, s, policy(3))).toBe(false);
    expect(s.usedChannels).toEqual([1, 2, 3]);
  });

  it('passes an unusable channel over (no retry check), counting the attempt', async () => {
    const s = call([UNUSABLE, SERVED]);
    expect(await tryChannels(ctx, SCRIPTED, s, policy(2))).toBe(true);
    expect(s.attempts).toEqual([0, 1]);
  });

  it('passes a channel over its own limits without counting the attempt or naming it as used', async () => {
    const s = call([PASSED_OVER, PASSED_OVER, SERVED]);
    expect(await tryChannels(ctx, SCRIPTED, s, policy(1))).toBe(true);
    expect(s.attempts).toEqual([0, 0, 0]);
    expect(s.usedChannels).toEqual([3]);
  });

  it('gives up when the caller is gone, and starts no attempt after it left', async () => {
    const s = call([GIVE_UP, SERVED]);
    expect(await tryChannels(ctx, SCRIPTED, s, policy(5))).toBe(false);
    expect(s.usedChannels).toEqual([1]);
    const left = call([SERVED]);
    left.gone = true;
    expect(await tryChannels(ctx, SCRIPTED, left, policy(5))).toBe(false);
    expect(left.usedChannels).toEqual([]);
  });

  it('ends when no channel is left', async () => {
    const s = call([503, 503, 503], 2);
    expect(await tryChannels(ctx, SCRIPTED, s, policy(5))).toBe(false);
    expect(s.usedChannels).toEqual([1, 2]);
    expect(s.last).toBe('failed 503');
  });
});
