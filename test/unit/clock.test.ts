// The virtual clock's arithmetic (src/sim/clock.ts): instants to the millisecond, Laravel's whole
// seconds, and how every view writes a time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactInstant, formatSeconds, later, phpTime, relativeTime, secondsBetween } from '../../src/sim/clock.ts';

const T0 = 1_700_000_000;

describe('clock', () => {
  it('phpTime is the whole second an instant falls in (PHP time() rounds down)', () => {
    expect(phpTime(T0)).toBe(T0);
    expect(phpTime(T0 + 0.5)).toBe(T0);
    expect(phpTime(T0 + 0.999)).toBe(T0);
    expect(phpTime(later(T0 + 0.5, 0.5))).toBe(T0 + 1);
  });

  it('writes times as scenarios do: t+0s, t+0.5s, t+0.3s (not t+0.30000000000000004s), t-5s', () => {
    expect(relativeTime(T0, T0)).toBe('t+0s');
    expect(relativeTime(T0 + 90, T0)).toBe('t+90s');
    expect(relativeTime(later(T0, 0.5), T0)).toBe('t+0.5s');
    expect(relativeTime(later(later(T0, 0.1), 0.2), T0)).toBe('t+0.3s');
    expect(relativeTime(T0 + 0.1 + 0.2, T0)).toBe('t+0.3s');
    expect(relativeTime(later(T0, 2.25), T0)).toBe('t+2.25s');
    expect(relativeTime(later(T0, 0.001), T0)).toBe('t+0.001s');
    expect(relativeTime(T0 - 5, T0)).toBe('t-5s');
    expect(formatSeconds(-0.0001)).toBe('0');
  });

  it("writes seconds exactly as String() writes the canonical instant, at every magnitude, around its fast path's bound too", () => {
    const bound = 2 ** 42 * 1000;
    const ms = fc.oneof(
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.integer({ min: -1e13, max: 1e13 }),
      fc.integer({ min: bound - 1e6, max: bound + 1e6 }),
      fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    );
    fc.assert(
      fc.property(ms, fc.double({ min: -0.49, max: 0.49, noNaN: true }), (n, off) => {
        const seconds = (n + off) / 1000;
        expect(formatSeconds(seconds)).toBe(String(exactInstant(seconds) + 0));
      }),
      { numRuns: 5000 },
    );
    for (const s of [0, -0, 0.001, -0.001, 1795560967.637, 1e21, -1e21, Infinity, -Infinity, NaN])
      expect(formatSeconds(s)).toBe(String(exactInstant(s) + 0));
  });

  it('the same millisecond is always the same number, however it was reached', () => {
    const ms = fc.integer({ min: 0, max: 10 * 365 * 24 * 3600 * 1000 });
    fc.assert(
      fc.property(ms, ms, (a, b) => {
        const sum = later(later(T0, a / 1000), b / 1000);
        expect(sum).toBe(exactInstant(T0 + (a + b) / 1000));
        expect(secondsBetween(T0, sum)).toBe((a + b) / 1000);
      }),
    );
  });
});
