// explainCapture, the library's lqsim explain: a capture's text in, its timeline, each job's life,
// the findings and the configuration out, the same as the CLI reads (from the package's entry).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explainCapture } from '../../src/index.ts';

const text = readFileSync(new URL('../fixtures/explain/laravel8-killed-worker.txt', import.meta.url), 'utf8');

describe('explainCapture', () => {
  it('explains a real capture given as text', () => {
    const e = explainCapture(text, { file: 'killed-worker.txt' });
    expect(e.problems).toEqual([]);
    expect(e.configuration.retryAfter).toEqual([{ value: 2, lines: [11, 23, 32] }]);
    expect(e.configuration.connections.map((c) => c.role)).toEqual(['dispatcher', 'worker', 'worker']);
    expect(e.findings.map((f) => f.lines)).toEqual([
      [13, 25],
      [25, 27],
    ]);
    expect(e.lives.map((l) => [l.job, l.events.length])).toEqual([['ProbeJob#1', 5]]);
    // Each finding's story, how sure, and the other story; the life's end with its condition.
    expect(e.findings.map((f) => [f.kind, f.certainty, f.alternatives.map((a) => a.kind)])).toEqual([
      ['killed-mid-job', 'possible', ['timed-out', 'capture-ended']],
      ['max-attempts-exceeded', 'possible', ['ran-again']],
    ]);
    expect(e.lives[0]).toMatchObject({ outcome: 'succeeded-or-failed', marks: [] });
    expect(e.timeline.steps[0]!.title).toBe('push: ProbeJob#1 onto default');
    expect(e.timeline.scenario.name).toBe('killed-worker.txt');
  });

  it("takes lines, CRLF ends, and names the lines that are not MONITOR's", () => {
    const lines = text.split('\n').map((l) => `${l}\r`);
    lines.splice(3, 0, 'garbage');
    const e = explainCapture(lines);
    expect(e.problems).toEqual([{ lineNo: 4, problem: expect.stringMatching(/^not a MONITOR line: /) }]);
    // Every line after the inserted one is one further on.
    expect(e.findings.map((f) => f.lines)).toEqual([
      [14, 26],
      [26, 28],
    ]);
  });
});
