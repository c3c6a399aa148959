import { describe, expect, it } from 'vitest';
import { Breaker, outcomeOfStatus, PROBE_LEASE_MS } from '../../src/core/routing/breaker.js';
import type { BreakerSettings } from '../../src/core/routing/breaker-settings.js';
import { ChannelBreakers } from '../../src/core/routing/breakers.js';

const S: BreakerSettings = {
  enabled: true,
  windowMs: 60_000,
  minFailures: 3,
  errorRate: 0.5,
  cooldownMs: 10_000,
  maxCooldownMs: 35_000,
};
const T0 = 1_700_000_000_000;
/** A single-key channel as selection sees it. */
const single = (id: number) => ({ id, multiKey: false, keyEnabled: [true] });

/** A registry on a clock the test moves. */
function fixture(settings: BreakerSettings = S) {
  const clock = { now: T0 };
  const breakers = new ChannelBreakers(
    () => settings,
    () => clock.now,
  );
  const seen: string[] = [];
  breakers.onTransition((target, t) => seen.push(`${target}:${t.state}`));
  return { clock, breakers, seen };
}

describe('channel breaker state machine', () => {
  it('opens after minFailures failures when they are at least errorRate of the window', () => {
    const { breakers, seen } = fixture();
    breakers.record(1, undefined, 'failure', NaN);
    breakers.record(1, undefined, 'failure', NaN);
    expect(breakers.blocked(single(1))).toBe(false);
    breakers.record(1, undefined, 'failure', NaN);
    expect(breakers.blocked(single(1))).toBe(true);
    expect(seen).toEqual(['1:open']);
    expect(breakers.health(1)).toMatchObject({
      state: 'open',
      open_until: Math.ceil((T0 + 10_000) / 1000),
      error_rate: 1,
      requests: 3,
    });
  });

  it('stays closed when the failures are a small share of a busy window', () => {
    const { breakers } = fixture();
    for (let i = 0; i < 20; i++) breakers.record(1, undefined, 'success', 100);
    for (let i = 0; i < 5; i++) breakers.record(1, undefined, 'failure', NaN);
    expect(breakers.blocked(single(1))).toBe(false);
    expect(breakers.health(1)).toMatchObject({ state: 'closed', error_rate: 0.2, requests: 25, p50_latency_ms: 100 });
  });

  it('forgets failures older than the window', () => {
    const { clock, breakers } = fixture();
    breakers.record(1, undefined, 'failure', NaN);
    breakers.record(1, undefined, 'failure', NaN);
    clock.now += 61_000;
    breakers.record(1, undefined, 'failure', NaN);
    expect(breakers.blocked(single(1))).toBe(false);
    expect(breakers.health(1).requests).toBe(1);
  });

  it('lets one probe through after the cool-down; success closes it', () => {
    const { clock, breakers, seen } = fixture();
    for (let i = 0; i < 3; i++) breakers.record(1, undefined, 'failure', NaN);
    clock.now += 9_999;
    expect(breakers.blocked(single(1))).toBe(true);
    clock.now += 1;
    expect(breakers.blocked(single(1))).toBe(false);
    expect(breakers.health(1).state).toBe('half_open');
    breakers.picked(1, undefined);
    // The probe is out: nobody else gets through until it reports.
    expect(breakers.blocked(single(1))).toBe(true);
    breakers.record(1, undefined, 'success', 250);
    expect(breakers.blocked(single(1))).toBe(false);
    expect(breakers.health(1)).toMatchObject({ state: 'closed', open_until: 0, requests: 0 });
    expect(seen).toEqual(['1:open', '1:closed']);
  });

  it('re-opens on a failed probe with a doubled cool-down, capped at the maximum, and resets it on close', () => {
    const { clock, breakers } = fixture();
    for (let i = 0; i < 3; i++) breakers.record(1, undefined, 'failure', NaN);
    const cooldowns: number[] = [];
    for (let round = 0; round < 4; round++) {
      const until = breakers.health(1).open_until * 1000;
      cooldowns.push(until - clock.now);
      clock.now = until;
      expect(breakers.blocked(single(1))).toBe(false);
      breakers.picked(1, undefined);
      breakers.record(1, undefined, 'failure', NaN);
    }
    expect(cooldowns).toEqual([10_000, 20_000, 35_000, 35_000]);
    clock.now += 35_000;
    expect(breakers.blocked(single(1))).toBe(false);
    breakers.record(1, undefined, 'success', 10);
    for (let i = 0; i < 3; i++) breakers.record(1, undefined, 'failure', NaN);
    expect(breakers.health(1).open_until * 1000 - clock.now).toBe(10_000);
  });

  it('gives the probe again when it ended without a verdict or reported nothing for a whole lease', () => {
    const { clock, breakers } = fixture();
    for (let i = 0; i < 3; i++) breakers.record(1, undefined, 'failure', NaN);
    clock.now += 10_000;
    expect(breakers.blocked(single(1))).toBe(false);
    breakers.picked(1, undefined);
    breakers.record(1, undefined, 'neutral', NaN);
    expect(breakers.blocked(single(1))).toBe(false);
    breakers.picked(1, undefined);
    expect(breakers.blocked(single(1))).toBe(true);
    clock.now += PROBE_LEASE_MS;
    expect(breakers.blocked(single(1))).toBe(false);
  });

  it('keeps keys of a multi-key channel apart; the channel is skipped only when every enabled key is open', () => {
    const { breakers } = fixture({ ...S, minFailures: 4 });
    const multi = { id: 7, multiKey: true, keyEnabled: [true, true, false] };
    for (let i = 0; i < 4; i++) breakers.record(7, 0, 'failure', NaN);
    for (let i = 0; i < 4; i++) breakers.record(7, 1, 'success', 5);
    expect(breakers.keyBlocked(7, 0)).toBe(true);
    expect(breakers.keyBlocked(7, 1)).toBe(false);
    // The channel counts every key's calls but does not open on one key's failures.
    expect(breakers.blocked(multi)).toBe(false);
    expect(breakers.health(7, [0, 1])).toMatchObject({
      state: 'closed',
      requests: 8,
      error_rate: 0.5,
      keys: { '0': 'open' },
    });
    for (let i = 0; i < 4; i++) breakers.record(7, 1, 'failure', NaN);
    expect(breakers.blocked(multi)).toBe(true);
    expect(breakers.health(7, [0, 1])).toMatchObject({ state: 'open', keys: { '0': 'open', '1': 'open' } });
    // One more enabled key without failures keeps the channel usable.
    expect(breakers.blocked({ ...multi, keyEnabled: [true, true, true] })).toBe(false);
  });

  it('switched off while open, skips nothing and shows the channel closed', () => {
    const settings = { ...S };
    const { breakers } = fixture(settings);
    for (let i = 0; i < 3; i++) breakers.record(1, undefined, 'failure', NaN);
    for (let i = 0; i < 3; i++) breakers.record(2, 0, 'failure', NaN);
    expect(breakers.blocked(single(1))).toBe(true);
    expect(breakers.keyBlocked(2, 0)).toBe(true);
    settings.enabled = false;
    expect(breakers.blocked(single(1))).toBe(false);
    expect(breakers.keyBlocked(2, 0)).toBe(false);
    expect(breakers.health(1).state).toBe('closed');
  });

  it("resolves a multi-key channel's half-open breaker (a failed test tripped it) by its keys' calls", () => {
    const { clock, breakers } = fixture();
    const multi = { id: 9, multiKey: true, keyEnabled: [true, true] };
    breakers.trip(9);
    expect(breakers.blocked(multi)).toBe(true);
    clock.now += 10_000;
    expect(breakers.blocked(multi)).toBe(false);
    breakers.picked(9, 1);
    breakers.record(9, 1, 'success', 5);
    expect(breakers.health(9, [0, 1]).state).toBe('closed');
  });

  it('records nothing when disabled, and trip() opens at once', () => {
    const off = fixture({ ...S, enabled: false });
    for (let i = 0; i < 10; i++) off.breakers.record(1, undefined, 'failure', NaN);
    off.breakers.trip(1);
    expect(off.breakers.blocked(single(1))).toBe(false);
    const on = fixture();
    on.breakers.trip(2);
    expect(on.breakers.blocked(single(2))).toBe(true);
  });

  it('in a cluster, waits for the probe claim instead of half-opening by itself, and takes other nodes’ states', () => {
    const { clock, breakers } = fixture();
    breakers.useCluster();
    breakers.apply('3', { state: 'open', until: T0 + 5_000, opens: 1 });
    expect(breakers.blocked(single(3))).toBe(true);
    clock.now += 6_000;
    expect(breakers.blocked(single(3))).toBe(true);
    const b = breakers.find('3')!;
    b.halfOpen(true, clock.now);
    expect(breakers.blocked(single(3))).toBe(false);
    breakers.apply('3', { state: 'closed', until: 0, opens: 0 });
    expect(breakers.blocked(single(3))).toBe(false);
    // An older open state does not replace a newer one.
    breakers.apply('3', { state: 'open', until: T0 + 50_000, opens: 2 });
    breakers.apply('3', { state: 'open', until: T0 + 20_000, opens: 1 });
    expect(breakers.health(3).open_until).toBe(Math.ceil((T0 + 50_000) / 1000));
  });

  it('counts no answer, timeouts, 429 and 5xx as failures, other answers as the upstream alive', () => {
    expect([0, 408, 429, 500, 502, 503, 529].map(outcomeOfStatus)).toEqual(Array(7).fill('failure'));
    expect([200, 400, 401, 403, 404, 413].map(outcomeOfStatus)).toEqual(Array(6).fill('success'));
  });

  it('takes the median of answered calls in the window', () => {
    const b = new Breaker(true);
    for (const ms of [30, 10, 20, 1000]) b.record('success', ms, S, T0);
    expect(b.p50(T0, S.windowMs)).toBe(25);
    expect(b.p50(T0 + 61_000, S.windowMs)).toBeUndefined();
  });
});
