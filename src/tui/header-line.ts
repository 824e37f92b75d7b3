// The top bar as one line: the scenario, the step shown and the virtual clock on the left, what
// the run is doing on the right; optional parts go first when the terminal is narrow. Pure.
import { laravelProfile } from '../output/describe.ts';
import { terminalSafe } from '../output/terminal-safe.ts';
import type { SessionStatus } from './live-session.ts';
import type { Line, Segment } from './segments.ts';
import { lineWidth, seg } from './segments.ts';

export interface HeaderInfo {
  scenario: string;
  profile: string;
  /** The step shown (its index, as the trace numbers it), or null before the first. */
  step: number | null;
  steps: number;
  clock: string;
  status: SessionStatus;
  /** The run ended with an error: it did not finish, whatever its status says. */
  failed?: boolean;
  playing: boolean;
  speed: string;
}

function statusSegments(h: HeaderInfo): Segment[] {
  const run = `${h.steps} step${h.steps === 1 ? '' : 's'}`;
  switch (h.status) {
    case 'starting':
      return [seg('◌ starting', 'warn')];
    case 'running':
      return [seg('● running…', 'warn')];
    case 'waiting':
      return [seg('● live', 'good'), seg(` · ${run} run`, 'dim')];
    case 'finished':
      return h.failed === true
        ? [seg('✗ ended early', 'bad'), seg(` · ${run}`, 'dim')]
        : [seg('✓ finished', 'good'), seg(` · ${run}`, 'dim')];
    case 'stopped':
      return [seg('■ stopped', 'dim'), seg(` · ${run}`, 'dim')];
  }
}

export function headerLine(h: HeaderInfo, width: number): Line {
  const name: Segment[] = [seg('lqsim ', 'bold'), seg(terminalSafe(h.scenario), 'key')];
  const profile: Segment[] = h.profile === '' ? [] : [seg(` · ${laravelProfile(h.profile)}`, 'dim')];
  const where: Segment[] = h.step === null ? [] : [seg(`  step #${h.step} · `, 'dim'), seg(h.clock, 'time')];
  const play: Segment[] = h.playing ? [seg(`▶ ${h.speed}  `, 'good')] : [];
  const status = statusSegments(h);
  const tries: Segment[][][] = [
    [
      [...name, ...profile, ...where],
      [...play, ...status],
    ],
    [
      [...name, ...where],
      [...play, ...status],
    ],
    [
      [...name, ...where],
      [...play, status[0]!],
    ],
    [[...where], [...play, status[0]!]],
  ];
  for (const [left, right] of tries) {
    const gap = width - lineWidth(left!) - lineWidth(right!);
    if (gap >= 2) return [...left!, seg(' '.repeat(gap)), ...right!];
  }
  return [...where, seg(' '), status[0]!];
}
