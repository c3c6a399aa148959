import { describe, expect, it } from 'vitest';
import { behindRate } from '../../src/http/server-timeouts.js';

describe('minimum body rate (mod_reqtimeout body=20,MinRate=500)', () => {
  it('allows the grace plus one second per MinRate bytes received, and no more', () => {
    expect(behindRate(20_000, 0, 500, 20_000)).toBe(false);
    expect(behindRate(20_001, 0, 500, 20_000)).toBe(true);
    // 1 byte every 2 s: 10 bytes after 20 s buy 20 ms.
    expect(behindRate(20_020, 10, 500, 20_000)).toBe(false);
    expect(behindRate(20_021, 10, 500, 20_000)).toBe(true);
    // 1 KB/s keeps ahead of 500 B/s indefinitely.
    for (const s of [30, 300, 3000]) expect(behindRate(s * 1000, s * 1000, 500, 20_000)).toBe(false);
    // 400 B/s falls behind once the grace is used up: at t, 20 + 0.8 t < t from t = 100 s.
    expect(behindRate(99_000, 99 * 400, 500, 20_000)).toBe(false);
    expect(behindRate(101_000, 101 * 400, 500, 20_000)).toBe(true);
  });
});
