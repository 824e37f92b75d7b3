// lqsim explain prints steps in the capture's order: every step holds a run of consecutive lines,
// each starting after the last one ended. A connection's SELECT joins its next call only when no
// other line comes between (phpredis selects as it connects); other traffic, whoever sends it, is
// one step per run. The captures are MONITOR lines written by hand, and the real ones shipped as
// fixtures with other connections' SELECTs and commands spliced in.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration } from '../../src/explain/configuration.ts';
import { CaptureExplainer } from '../../src/explain/timeline.ts';
import { formatMonitorLine } from '../../src/redis/redis-escape.ts';

const parse = (text: string): CapturedLine[] =>
  text
    .split('\n')
    .map((raw, i) => captureEntry(raw, i + 1))
    .filter((e): e is CapturedLine => e !== null && !isProblem(e));

/** Each step's title and the capture lines it holds (first, last), in the order they are handed out. */
function steps(lines: CapturedLine[]): Array<{ title: string; first: number; last: number; count: number }> {
  const out: Array<{ title: string; first: number; last: number; count: number }> = [];
  const explainer = new CaptureExplainer(captureConfiguration(lines), {
    file: 'x',
    onStep: (step, at) => out.push({ title: step.title, ...at, count: step.commands.length }),
  });
  for (const l of lines) explainer.add(l);
  explainer.finish();
  return out;
}

/** Every line in exactly one step, steps one after another. */
function expectCaptureOrder(lines: CapturedLine[]): void {
  const got = steps(lines);
  let next = lines[0]!.lineNo;
  for (const s of got) {
    expect(s.first, `${s.title} (lines ${s.first}-${s.last})`).toBe(next);
    expect(s.last - s.first + 1).toBe(s.count);
    next = s.last + 1;
  }
  expect(next).toBe(lines.at(-1)!.lineNo + 1);
}

const line = (t: number, client: string, ...args: string[]) =>
  formatMonitorLine({ time: `${1000 + t}.${String(t).padStart(6, '0')}`, db: 0, client, args });
const PAYLOAD = '{"uuid":"u1","displayName":"App\\\\Jobs\\\\A","job":"x","data":{},"id":"i1","attempts":0}';

describe('lqsim explain: steps in capture order', () => {
  it("lets a SELECT go as other traffic when another connection's line comes before its call", () => {
    const capture = [
      line(1, '127.0.0.1:5001', 'SELECT', '0'), // the app connects...
      line(2, '127.0.0.1:5002', 'GET', 'foo'), // ...a cache read from another request...
      line(3, '127.0.0.1:5003', 'SELECT', '0'), // ...a third connection that sends nothing else
      line(4, '127.0.0.1:5002', 'SET', 'bar', '1'),
      line(5, '127.0.0.1:5001', 'RPUSH', 'queues:default', PAYLOAD), // the app's dispatch
      line(6, '127.0.0.1:5004', 'PING'),
    ].join('\n');
    const got = steps(parse(capture));
    expect(got.map(({ title, first, last }) => [title, first, last])).toEqual([
      ['other traffic: 4 commands (SELECT, GET, SET) from dispatcher-1, other-1, other-2', 1, 4],
      ['push: A#1 onto default', 5, 5],
      ['other traffic: 1 command (PING)', 6, 6],
    ]);
  });

  it("keeps a SELECT with its connection's call when nothing comes between, also after a run of other traffic", () => {
    const capture = [
      line(1, '127.0.0.1:5002', 'GET', 'foo'),
      line(2, '127.0.0.1:5001', 'SELECT', '0'),
      line(3, '127.0.0.1:5001', 'RPUSH', 'queues:default', PAYLOAD),
      line(4, '127.0.0.1:5002', 'SELECT', '1'),
    ].join('\n');
    expect(steps(parse(capture)).map(({ title, first, last }) => [title, first, last])).toEqual([
      ['other traffic: 1 command (GET)', 1, 1],
      ['push: A#1 onto default', 2, 3],
      // A SELECT the capture ends on is in its place, last.
      ['other traffic: 1 command (SELECT)', 4, 4],
    ]);
  });

  const fixtures = [
    ...[
      'laravel8-killed-worker.txt',
      'laravel8-max-attempts.txt',
      'laravel8-ran-twice.txt',
      'laravel8-three-jobs.txt',
      'laravel8-timeout-kills.txt',
    ].map((f) => new URL(`../fixtures/explain/${f}`, import.meta.url)),
    new URL('../fixtures/seed-003-capture.txt', import.meta.url),
  ];
  for (const url of fixtures) {
    const name = url.pathname.split('/').at(-1)!;
    it(`${name}, as captured and with other connections' SELECTs and commands spliced in`, () => {
      const raw = readFileSync(url, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '' && l.trim() !== 'OK');
      expectCaptureOrder(parse(raw.join('\n')));
      // Splice, at every third line (not inside a script's lines), a SELECT of one connection and a
      // command of another, at that line's time: the app's queue lines keep their meaning.
      const spliced: string[] = [];
      raw.forEach((l, i) => {
        spliced.push(l);
        const next = raw[i + 1];
        if (i % 3 !== 0 || next === undefined || / \[\d+ lua\] /.test(next)) return;
        const time = l.slice(0, l.indexOf(' '));
        spliced.push(
          `${time} [0 10.9.9.${i % 4}:4000] "SELECT" "0"`,
          `${time} [0 10.9.9.${(i + 1) % 4}:4000] "GET" "k"`,
        );
      });
      expectCaptureOrder(parse(spliced.join('\n')));
    });
  }
});
