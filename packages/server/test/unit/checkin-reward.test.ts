import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { dayIn } from '../../src/lib/time.js';
import { drawReward } from '../../src/modules/checkin/service.js';

describe('check-in reward draw', () => {
  it('is the minimum when there is no larger maximum', () => {
    expect(drawReward(500, 0, () => 3)).toBe(500);
    expect(drawReward(500, 500, () => 3)).toBe(500);
    expect(drawReward(0, 0)).toBe(0);
  });

  it('picks among min, min + 100, … max', () => {
    const seen: number[] = [];
    expect(drawReward(1000, 2000, (n) => (seen.push(n), 0))).toBe(1000);
    expect(seen).toEqual([11]);
    expect(drawReward(1000, 2000, (n) => n - 1)).toBe(2000);
    expect(drawReward(1000, 2000, () => 4)).toBe(1400);
    // A range that is not a whole number of steps never goes past the maximum.
    expect(drawReward(1000, 1250, (n) => n - 1)).toBe(1200);
  });

  it('with the real random source stays in range and on the steps', () => {
    for (let i = 0; i < 200; i++) {
      const q = drawReward(300, 900);
      expect(q).toBeGreaterThanOrEqual(300);
      expect(q).toBeLessThanOrEqual(900);
      expect(q % 100).toBe(0);
    }
  });
});

describe('calendar days in a time zone', () => {
  it('formats the day of an instant in the zone', () => {
    const at = new Date('2026-01-01T17:30:00Z');
    expect(dayIn('UTC', at)).toBe('2026-01-01');
    expect(dayIn('Asia/Shanghai', at)).toBe('2026-01-02');
    expect(dayIn('America/Los_Angeles', new Date('2026-03-01T07:59:00Z'))).toBe('2026-02-28');
  });

  it('TZ must name a zone; unset means the process zone', () => {
    expect(loadConfig({ TZ: 'Asia/Shanghai' }).timeZone).toBe('Asia/Shanghai');
    expect(loadConfig({}).timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(() => loadConfig({ TZ: 'Mars/Olympus' })).toThrow(ConfigError);
    expect(() => loadConfig({ TZ: 'Mars/Olympus' })).toThrow(/^TZ: must be an IANA time zone/);
  });

  it('accepts :Zone, and a non-IANA TZ the process itself runs under counts days in local time', () => {
    expect(loadConfig({ TZ: ':Asia/Shanghai' }).timeZone).toBe('Asia/Shanghai');
    const saved = process.env.TZ;
    process.env.TZ = 'CST-8';
    try {
      expect(loadConfig({ TZ: 'CST-8' }).timeZone).toBe('');
      // 17:30 UTC is the next day at UTC+8.
      expect(dayIn('', new Date('2026-01-01T17:30:00Z'))).toBe('2026-01-02');
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});
