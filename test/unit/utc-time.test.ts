// utcTime dates each second once (a capture's steps come many to a second): it must say what
// Date's ISO form says for every instant, whatever second it dated last.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utcTime } from '../../src/output/describe.ts';

/** The definition: Date's ISO form to the millisecond, with a space for the T and no Z. */
const plainly = (t: number): string | null => {
  const d = new Date(Math.round(t * 1000));
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace('T', ' ').replace('Z', '');
};

describe('utcTime', () => {
  it('is Date.toISOString to the millisecond, at the edges of a second and of the dates', () => {
    const t = 1795560967; // 2026-11-24 22:56:07 UTC
    expect(utcTime(t + 0.636697)).toBe('2026-11-24 22:56:07.637');
    expect(utcTime(t + 0.9996)).toBe('2026-11-24 22:56:08.000'); // rounds into the next second
    expect(utcTime(t + 0.0004)).toBe('2026-11-24 22:56:07.000');
    expect(utcTime(-0.5)).toBe('1969-12-31 23:59:59.500');
    expect(utcTime(8.64e12)).toBe(plainly(8.64e12));
    expect(utcTime(8.64e12 + 1)).toBeNull();
    expect(utcTime(Number.NaN)).toBeNull();
  });

  it('says what the definition says for any sequence of instants', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e11, max: 1e11, noNaN: true }), { maxLength: 20 }), (ts) => {
        for (const t of ts) expect(utcTime(t)).toBe(plainly(t));
      }),
      { numRuns: 300 },
    );
  });
});
