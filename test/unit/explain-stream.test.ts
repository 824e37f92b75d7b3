// lqsim explain in bounded memory: the timeline built line by line hands each step out and keeps
// none unless asked, the same steps as the whole-capture build; the progress bar draws only when
// enabled, after its delay, over the passes it was given.
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { explainCapture } from '../../src/explain/index.ts';
import { livesShown } from '../../src/explain/lives.ts';
import { startProgress } from '../../src/explain/progress.ts';
import type { Step } from '../../src/scenarios/timeline.ts';
import type { JobLife } from '../../src/explain/timeline.ts';
import { CaptureExplainer, captureTimeline } from '../../src/explain/timeline.ts';

const lines = (name: string): CapturedLine[] =>
  readFileSync(new URL(`../fixtures/explain/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .map((raw, i) => captureEntry(raw, i + 1))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e));

describe('CaptureExplainer', () => {
  it('hands out each step as the next begins and keeps none, the same steps and findings as the whole build', () => {
    const captured = lines('laravel8-ran-twice.txt');
    const config = captureConfiguration(captured);
    const whole = captureTimeline(captured, config, { file: 'x' });
    const seen: Step[] = [];
    const explainer = new CaptureExplainer(config, { file: 'x', onStep: (s) => seen.push(s) });
    for (const [i, entry] of captured.entries()) {
      explainer.add(entry);
      // A step is out before the capture ends: by the second worker's first line (15), the
      // dispatch and worker-1's poll are.
      if (entry.lineNo === 15) expect(seen.map((s) => s.actor)).toEqual(['dispatcher-1', 'worker-1']);
      if (i === 0) expect(seen).toEqual([]);
    }
    const streamed = explainer.finish();
    expect(streamed.timeline.steps).toEqual([]);
    expect(seen.map((s) => s.title)).toEqual(whole.timeline.steps.map((s) => s.title));
    expect(seen.map((s) => s.commands.length)).toEqual(whole.timeline.steps.map((s) => s.commands.length));
    expect(streamed.findings).toEqual(whole.findings);
    expect(streamed.timeline.jobs).toEqual(whole.timeline.jobs);
  });

  it('names the first problems and counts the rest', () => {
    const config = captureConfiguration([]);
    const e = new CaptureExplainer(config, {
      file: 'x',
      problems: [{ lineNo: 3, problem: 'not a MONITOR line: x' }],
      problemCount: 41,
    });
    expect(e.timeline.warnings).toEqual(['line 3: not a MONITOR line: x', "40 more lines that are not MONITOR's"]);
  });
});

describe('startProgress', () => {
  const drawn = (o: { enabled: boolean; passes: number }, updates: Array<[number, number]>): string => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d: Buffer) => (text += d.toString()));
    const p = startProgress('capture.txt', 100e6, { ...o, stream, showAfterMs: 0 });
    for (const [pass, bytes] of updates) p.update(pass, bytes);
    p.stop();
    p.stop();
    return text;
  };

  it('draws the bytes read on stderr over both passes', () => {
    const text = drawn({ enabled: true, passes: 2 }, [
      [1, 10e6],
      [1, 100e6],
      [2, 50e6],
    ]);
    expect(text).toContain('lqsim explain capture.txt [');
    expect(text).toContain('| 10/100 MB, pass 1 of 2');
  });

  it('draws nothing when not enabled (no terminal, CI)', () => {
    expect(drawn({ enabled: false, passes: 2 }, [[1, 10e6]])).toBe('');
  });

  it('with one pass (the trace goes to the terminal), ignores the second', () => {
    const text = drawn({ enabled: true, passes: 1 }, [
      [1, 10e6],
      [2, 50e6],
    ]);
    expect(text).toContain('pass 1 of 1');
    expect(text).not.toContain('pass 2');
  });
});

describe("jobs' lives printed", () => {
  const life = (n: number, whats: string[], eventful = true): JobLife => ({
    job: `Job#${n}`,
    events: whats.map((what, i) => ({ line: n * 10 + i, t: 1000 + i, what })),
    eventful,
    outcome: 'succeeded',
    marks: [],
  });
  const quiet = (n: number) =>
    life(
      n,
      ['pushed onto default by dispatcher-1', 'reserved by worker-1 for attempt 1 until t+90s', 'deleted by worker-1'],
      false,
    );

  it('prints every life when there are few', () => {
    const lives = [quiet(1), quiet(2)];
    expect(livesShown(lives)).toEqual({ shown: lives, quiet: 0, more: 0 });
  });

  it('beyond that, only the eventful ones, and counts the rest', () => {
    const lives = Array.from({ length: 30 }, (_, i) => quiet(i + 1));
    lives[7] = life(8, ['pushed onto default by dispatcher-1', 'reserved by worker-1 for attempt 1 until t+90s']); // never finished
    lives[9] = life(10, [
      'reserved by worker-1 for attempt 1 until t+3s',
      'reserved by worker-2 for attempt 2 until t+6s',
      'deleted by worker-2',
    ]);
    lives[11] = life(12, [
      ...quiet(12)
        .events.map((e) => e.what)
        .slice(0, 2),
      'released by worker-1 to default:delayed until t+5s',
    ]);
    const { shown, quiet: q, more } = livesShown(lives);
    expect(shown.map((l) => l.job)).toEqual(['Job#8', 'Job#10', 'Job#12']);
    expect([q, more]).toEqual([27, 0]);
  });
});

describe('a long capture in text', () => {
  it("counts its quiet lives instead of keeping them, and keeps the eventful ones and every life in json's", () => {
    // 30 copies of the three-job capture (each a second apart, fresh uuids): 90 quiet jobs.
    const base = readFileSync(new URL('../fixtures/explain/laravel8-three-jobs.txt', import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => l !== '' && l !== 'OK');
    const raw = Array.from({ length: 30 }, (_, copy) =>
      base.map((l) =>
        l.replace(/[0-9a-f]{8}-[0-9a-f]{4}-/g, (u) => `${copy.toString(16).padStart(8, '0')}-${u.slice(9)}`),
      ),
    ).flat();
    const lines = raw
      .map((l, i) => captureEntry(l, i + 1))
      .filter((e): e is CapturedLine => e !== null && !isProblem(e));
    const config = captureConfiguration(lines);
    const text = new CaptureExplainer(config, { file: 'x' });
    const json = new CaptureExplainer(config, { file: 'x', keepSteps: true });
    for (const l of lines) {
      text.add(l);
      json.add(l);
    }
    const t = text.finish();
    const j = json.finish();
    expect(j.lives).toHaveLength(90);
    // Each pushed, reserved once and deleted (the three-job capture's story): none eventful.
    expect(j.lives.filter((l) => l.eventful)).toEqual([]);
    expect(j.quietLives).toBe(0);
    // Counting begins at the first delete made while more than 20 jobs are known: each copy pushes
    // its three jobs before working them, so job 21 is known when job 19 is deleted; 18 kept, 72 counted.
    expect([t.lives.length, t.quietLives]).toEqual([18, 72]);
    expect(livesShown(t.lives, t.quietLives)).toEqual({ shown: [], quiet: 90, more: 0 });
  });
});

describe('a life reserved once and deleted', () => {
  it('is eventful when its ZREM removed nothing: the copy had been moved back to the queue', () => {
    // ran-twice without worker-2's pop (lines 23-26) and what came after worker-1's poll (34 on):
    // worker-1 reserves (13), worker-2's migrate moves the expired copy back (21), worker-1's ZREM
    // (27) finds no copy in :reserved, and the job waits in the queue to run again.
    const all = readFileSync(new URL('../fixtures/explain/laravel8-ran-twice.txt', import.meta.url), 'utf8').split(
      '\n',
    );
    const cut = all.map((l, i) => ((i + 1 >= 23 && i + 1 <= 26) || i + 1 >= 34 ? '' : l));
    const { lives } = explainCapture(cut);
    expect(lives).toHaveLength(1);
    expect(lives[0]!.events.at(-1)!.what).toBe(
      'deleted by worker-1 (no copy of it is in :reserved now: the ZREM removes nothing)',
    );
    expect(lives[0]!.eventful).toBe(true);
  });
});
