// The narration at the last step of a finished run: the end summary and the run's warnings.
import { describe, expect, it } from 'vitest';
import { narrationLines } from '../../src/tui/narration-lines.ts';
import { lineText } from '../../src/tui/segments.ts';
import type { Step } from '../../src/scenarios/timeline.ts';

const step: Step = {
  index: 0,
  t: 100,
  actor: 'worker-1',
  kind: 'pop',
  title: 'pop: no job',
  methods: [],
  commands: [],
  state: { t: 100, queues: [], workers: [], failed: [], executions: {} },
};

describe('narration at the end of a run', () => {
  it('lists the warnings after the end summary, escaped', () => {
    const text = narrationLines(
      step,
      { start: 100, atEnd: true, jobs: [], warnings: ['note at t+5s matched no step: "\x1b[2Jhi"'] },
      80,
    )
      .map(lineText)
      .join('\n');
    expect(text).toContain('end: the run is over; no jobs were dispatched.');
    expect(text).toContain('warning: note at t+5s matched no step: "\\x1b[2Jhi"');
    expect(text).not.toContain('\x1b');
  });

  it('shows no warnings before the end', () => {
    const text = narrationLines(step, { start: 100, atEnd: false, jobs: [], warnings: ['w'] }, 80)
      .map(lineText)
      .join('\n');
    expect(text).not.toContain('warning:');
  });
});
