// The bench's pure parts: medians, ratios against targets, redis-benchmark's CSV, and the summary
// table docs/performance.md is pasted from. Tested in test/unit/bench-measure.test.ts.

export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of nothing');
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** redis-benchmark --csv: the requests per second of its PING_MBULK row (the RESP form clients send), as µs per request. */
export function benchmarkPingUs(csv: string): number {
  const rows = csv
    .trim()
    .split('\n')
    .slice(1)
    .map((r) => r.split(',').map((f) => f.replaceAll('"', '')));
  const row = rows.find((r) => r[0] === 'PING_MBULK') ?? rows.at(-1);
  const rps = Number(row?.[1]);
  if (!Number.isFinite(rps) || rps <= 0)
    throw new Error(`no PING rate in redis-benchmark's output: ${csv.slice(0, 120)}`);
  return 1e6 / rps;
}

/** `/usr/bin/time -f %M` writes the peak RSS in KiB on its last line. */
export function peakRssMb(timeOutput: string): number {
  const kib = Number(timeOutput.trim().split('\n').at(-1));
  if (!Number.isFinite(kib)) throw new Error(`no peak RSS in: ${timeOutput.slice(-120)}`);
  return kib / 1024;
}

export interface Goal {
  goal: string;
  /** The tool's figure, formatted. */
  tool: string;
  /** Real Laravel's (or the reference's) figure, formatted; '' when there is none. */
  reference: string;
  /** tool / reference, or the measured value where the target is absolute. */
  value: number | null;
  /** The target, as text ("≤ 0.5x", "≤ 150 ms"). */
  target: string;
  met: boolean | null;
  /**
   * What no client can go below on this machine, measured the same way in the same run (floor.ts),
   * formatted as the value is ("0.66x", "41 ms"); absent where none was measured. A target under
   * its floor cannot be met by any change to the tool, and the table says so.
   */
  floor?: string;
  /** Whether the target is below the floor. */
  belowFloor?: boolean;
}

/** A ratio against a ceiling: its goal row. `value` null when the reference could not be measured. */
export function ratioGoal(goal: string, tool: string, reference: string, value: number | null, max: number): Goal {
  return { goal, tool, reference, value, target: `≤ ${max}x`, met: value === null ? null : value <= max };
}

export function verdict(met: boolean | null, belowFloor = false): string {
  if (met === null) return 'not measured';
  if (met) return 'within target';
  return belowFloor ? 'OVER TARGET (the target is below the floor)' : 'OVER TARGET';
}

export function formatRatio(value: number | null): string {
  return value === null ? '–' : `${value.toFixed(2)}x`;
}

/** The summary as a markdown table. */
export function goalTable(goals: readonly Goal[]): string {
  const rows = goals.map(
    (g) =>
      `| ${g.goal} | ${g.tool} | ${g.reference || '–'} | ${g.target.endsWith('x') ? formatRatio(g.value) : '–'} | ${g.target} | ${g.floor ?? '–'} | ${verdict(g.met, g.belowFloor)} |`,
  );
  return ['| goal | lqsim | reference | ratio | target | floor | |', '|---|---|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}

/**
 * `--jobs small,big`: two sizes, the second larger (the memory and linearity run is measured
 * against the first). Throws a one-line usage error for anything else.
 */
export function parseJobSizes(text: string): [number, number] {
  const sizes = text.split(',').map((s) => s.trim());
  const [small, big] = sizes.map(Number);
  const whole = (n: number | undefined): n is number => n !== undefined && Number.isSafeInteger(n) && n > 0;
  if (sizes.length !== 2 || !whole(small) || !whole(big) || big <= small || sizes.some((s) => !/^\d+$/.test(s)))
    throw new Error(
      `--jobs takes two job counts, the second larger, as small,big (e.g. --jobs 1000,10000): got "${text}"`,
    );
  return [small, big];
}
