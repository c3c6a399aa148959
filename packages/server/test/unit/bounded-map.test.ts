import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/lib/bounded-map.js';

describe('BoundedMap', () => {
  it('never holds more than its cap, whatever is set', () => {
    const m = new BoundedMap<string, number>({ maxEntries: 100 });
    for (let i = 0; i < 100_000; i++) m.set(`k${i}`, i);
    expect(m.size).toBe(100);
    // The newest entries are the ones kept.
    expect(m.get('k99999')).toBe(99_999);
    expect(m.get('k99900')).toBe(99_900);
    expect(m.get('k0')).toBeUndefined();
  });

  it('keeps recently read entries over ones never read (least recently used, approximately)', () => {
    const m = new BoundedMap<string, number>({ maxEntries: 10 });
    for (let i = 0; i < 10; i++) m.set(`k${i}`, i);
    // A hot key read between every insert of a flood survives it.
    for (let i = 10; i < 10_000; i++) {
      expect(m.get('k3')).toBe(3);
      m.set(`k${i}`, i);
    }
    expect(m.get('k3')).toBe(3);
    expect(m.get('k0')).toBeUndefined();
    expect(m.size).toBe(10);
  });

  it('forgets entries after their time to live, the map default or their own', () => {
    let now = 1_000;
    const m = new BoundedMap<string, string>({ maxEntries: 10, ttlMs: 100, clock: () => now });
    m.set('a', 'A');
    m.set('b', 'B', 500);
    now += 99;
    expect(m.get('a')).toBe('A');
    now += 1;
    expect(m.get('a')).toBeUndefined();
    expect(m.has('a')).toBe(false);
    expect(m.get('b')).toBe('B');
    expect([...m.keys()]).toEqual(['b']);
    now += 400;
    expect(m.get('b')).toBeUndefined();
    // A read given its own time does not consult the clock.
    m.set('c', 'C', 100, 5_000);
    expect(m.get('c', 5_099)).toBe('C');
    expect(m.get('c', 5_100)).toBeUndefined();
  });

  it('drops expired entries before live ones when full, and as it is used', () => {
    let now = 0;
    const m = new BoundedMap<string, number>({ maxEntries: 3, clock: () => now });
    m.set('live', 1);
    m.set('short', 2, 10);
    m.set('other', 3);
    m.get('live');
    m.get('other');
    now = 20;
    m.set('new', 4);
    expect([...m.keys()].sort()).toEqual(['live', 'new', 'other']);
    const ttl = new BoundedMap<number, number>({ maxEntries: 1_000, ttlMs: 5, clock: () => now });
    for (let i = 0; i < 1_000; i++) {
      now++;
      ttl.set(i, i);
    }
    // Each insert drops expired entries at the head: the map holds about a TTL's worth, not its cap.
    expect(ttl.size).toBeLessThan(20);
  });

  it('updates in place, deletes, clears and iterates like a Map', () => {
    const m = new BoundedMap<string, number>({ maxEntries: 3 });
    m.set('a', 1).set('b', 2).set('a', 3);
    expect(m.size).toBe(2);
    expect([...m]).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    expect([...m.values()]).toEqual([3, 2]);
    expect(m.delete('a')).toBe(true);
    expect(m.delete('a')).toBe(false);
    for (const [k] of m) m.delete(k);
    expect(m.size).toBe(0);
    m.set('x', 1);
    m.clear();
    expect(m.get('x')).toBeUndefined();
    expect(() => new BoundedMap({ maxEntries: 0 })).toThrow(RangeError);
  });

  it('agrees with a plain Map on every live key it keeps, and never exceeds its cap (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.tuple(fc.constantFrom('set', 'get', 'delete'), fc.integer({ min: 0, max: 40 }), fc.integer()), {
          maxLength: 300,
        }),
        (cap, ops) => {
          const m = new BoundedMap<number, number>({ maxEntries: cap });
          const model = new Map<number, number>();
          for (const [op, k, v] of ops) {
            if (op === 'set') {
              m.set(k, v);
              model.set(k, v);
            } else if (op === 'delete') {
              m.delete(k);
              model.delete(k);
            } else {
              const got = m.get(k);
              if (got !== undefined) expect(got).toBe(model.get(k));
            }
            expect(m.size).toBeLessThanOrEqual(cap);
            // The entry just set is always there.
            if (op === 'set') expect(m.get(k)).toBe(v);
          }
        },
      ),
    );
  });
});
