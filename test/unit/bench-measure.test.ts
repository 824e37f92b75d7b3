// The bench's arithmetic and parsing (bench/measure.ts): what it prints must be what it measured.
import { describe, expect, it } from 'vitest';
import { benchmarkPingUs, goalTable, median, parseJobSizes, peakRssMb, ratioGoal } from '../../bench/measure.ts';

describe('bench/measure', () => {
  it('takes the median of odd and even counts, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
  });

  it("reads redis-benchmark's PING_MBULK rate as µs per round trip", () => {
    const csv = [
      '"test","rps","avg_latency_ms"',
      '"PING_INLINE","40000.00","0.020"',
      '"PING_MBULK","25000.00","0.030"',
    ].join('\n');
    expect(benchmarkPingUs(csv)).toBe(40);
    expect(() => benchmarkPingUs('"test","rps"\n')).toThrow(/no PING rate/);
  });

  it('reads the peak RSS /usr/bin/time -f %M prints last, in MiB', () => {
    expect(peakRssMb('lqsim: Using local redis-server\n204800\n')).toBe(200);
    expect(() => peakRssMb('Command terminated by signal 9')).toThrow();
  });

  it('judges a ratio against its ceiling, and says when it could not be measured', () => {
    expect(ratioGoal('x', '1 s', '2 s', 0.5, 0.5).met).toBe(true);
    expect(ratioGoal('x', '1.1 s', '2 s', 0.55, 0.5).met).toBe(false);
    expect(ratioGoal('x', '1 s', '', null, 0.5).met).toBeNull();
  });

  it('prints one markdown row per goal, ratios only where the target is one, and the floor where measured', () => {
    const table = goalTable([
      ratioGoal('10,000 jobs', '4.00 s', '10.00 s', 0.4, 0.5),
      { goal: 'peak RSS', tool: '190 MB', reference: '', value: 190, target: '≤ 300 MB', met: true },
      { ...ratioGoal('per command', '98 µs', '37 µs', 2.65, 1.5), floor: '2.49x', belowFloor: true },
      { ...ratioGoal('a warm run', '12 ms', '10 ms', 1.2, 1), floor: '0.8x', belowFloor: false },
    ]);
    expect(table.split('\n')).toEqual([
      '| goal | lqsim | reference | ratio | target | floor | |',
      '|---|---|---|---|---|---|---|',
      '| 10,000 jobs | 4.00 s | 10.00 s | 0.40x | ≤ 0.5x | – | within target |',
      '| peak RSS | 190 MB | – | – | ≤ 300 MB | – | within target |',
      '| per command | 98 µs | 37 µs | 2.65x | ≤ 1.5x | 2.49x | OVER TARGET (the target is below the floor) |',
      '| a warm run | 12 ms | 10 ms | 1.20x | ≤ 1x | 0.8x | OVER TARGET |',
    ]);
  });

  it('takes --jobs as two sizes, the second larger, and refuses anything else in one line', () => {
    expect(parseJobSizes('1000,10000')).toEqual([1000, 10000]);
    for (const bad of ['1000', '', '1000,', '1000,500', '1000,1000', '0,10', '1e3,1e4', '1000,abc', '1,2,3', '-1,5'])
      expect(() => parseJobSizes(bad)).toThrow(
        `--jobs takes two job counts, the second larger, as small,big (e.g. --jobs 1000,10000): got "${bad}"`,
      );
  });
});
