// lqsim explain in bounded memory (issue 24): what it keeps beyond a line holds no read chunk
// alive, json is written as it goes and is the same document as the whole timeline's, and the
// capture file is read into lines exactly as readline reads them.
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { heapMb } from '../helpers/heap.ts';
import { writeBigCapture } from '../../bench/big-capture.ts';
import type { CapturedLine } from '../../src/explain/capture.ts';
import { captureEntry, forEachLine, isProblem } from '../../src/explain/capture.ts';
import { captureConfiguration, ConfigurationReader } from '../../src/explain/configuration.ts';
import { ExplainedJsonWriter } from '../../src/explain/json-writer.ts';
import { ownCopy } from '../../src/redis/own-string.ts';
import { CaptureExplainer, captureTimeline } from '../../src/explain/timeline.ts';
import { renderJson } from '../../src/output/json.ts';

describe('strings kept beyond their line', () => {
  it('ownCopy keeps nothing of the 64 KB chunk a short string was cut from; the cut itself keeps it all', () => {
    const cut = (n: number): string => `${String(n).padStart(6, '0')}${'x'.repeat(65_530)}`.slice(0, 20);
    const before = heapMb();
    const slices = Array.from({ length: 1000 }, (_, n) => cut(n));
    const sliced = heapMb() - before;
    slices.length = 0;
    const base = heapMb();
    const owned = Array.from({ length: 1000 }, (_, n) => ownCopy(cut(n)));
    const kept = heapMb() - base;
    expect(owned[7]).toBe(`000007${'x'.repeat(14)}`);
    expect(sliced).toBeGreaterThan(50); // the setup does make slices that hold their chunk
    expect(kept).toBeLessThan(2);
  });

  it('a capture with a connection per request and per --once worker, read in 64 KB chunks: both passes keep none of them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lqsim-memory-'));
    try {
      const file = join(dir, 'capture.txt');
      writeBigCapture(file, 16e6, { connectionPerJob: true });
      // A queue name of 13 characters or more: V8 copies shorter cuts anyway.
      const text = readFileSync(file, 'latin1').replaceAll('queues:default', 'queues:invoices-and-reminders');
      // Lines cut out of 64 KB chunks, as a reader that slices its chunk would hand them out.
      function* lines(): Generator<CapturedLine> {
        let lineNo = 0;
        for (let at = 0; at < text.length;) {
          const end = text.lastIndexOf('\n', at + 65_536);
          const chunk = text.slice(at, end <= at ? text.length : end + 1) + ' '; // a flat chunk of its own
          at = end <= at ? text.length : end + 1;
          for (const raw of chunk.slice(0, -1).split('\n')) {
            const entry = captureEntry(raw, ++lineNo);
            if (entry !== null && !isProblem(entry)) yield entry;
          }
        }
      }
      text.lastIndexOf('\n', 10); // flat before the heap is measured (replaceAll's result may not be)
      const chunks = text.length / 65_536;
      const base = heapMb();
      const reader = new ConfigurationReader();
      for (const entry of lines()) reader.add(entry);
      const config = reader.result();
      const afterPass1 = heapMb() - base;
      const explainer = new CaptureExplainer(config, { file, allLives: true, onStep: () => undefined });
      for (const entry of lines()) explainer.add(entry);
      const explained = explainer.finish();
      const afterPass2 = heapMb() - base;
      expect(config.connections.length).toBeGreaterThan(1500);
      expect(explained.lives.length).toBeGreaterThan(600);
      expect(explained.timeline.jobs[0]!.queue).toBe('invoices-and-reminders');
      // Every chunk holds a new connection and new jobs: kept slices would keep all 16 MB of them.
      expect(chunks).toBeGreaterThan(200);
      expect(afterPass1).toBeLessThan(4);
      // What pass 2 keeps is every life (allLives, 600+) and each connection's few recent commands
      // (explain/liveness.ts): ~7.6 MB. Slices kept instead of copies keep 17-22 MB.
      expect(afterPass2).toBeLessThan(12);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('json written as it goes', () => {
  const FIXTURES = [
    'explain/laravel8-killed-worker.txt',
    'explain/laravel8-max-attempts.txt',
    'explain/laravel8-ran-twice.txt',
    'explain/laravel8-three-jobs.txt',
    'explain/laravel8-timeout-kills.txt',
    'seed-003-capture.txt',
  ];
  it.each(FIXTURES)('%s: byte for byte the whole timeline renderJson writes', (name) => {
    const captured = readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')
      .split('\n')
      .map((raw, i) => captureEntry(raw, i + 1))
      .filter((e): e is CapturedLine => e !== null && !isProblem(e));
    const config = captureConfiguration(captured);
    const whole = captureTimeline(captured, config, { file: name });
    const expected = renderJson(Object.assign({}, whole.timeline, { lives: whole.lives, findings: whole.findings }));

    let written = '';
    const json = new ExplainedJsonWriter((t) => void (written += t));
    const explainer = new CaptureExplainer(config, { file: name, allLives: true, onStep: (s) => json.step(s) });
    json.begin(explainer.timeline);
    for (const entry of captured) explainer.add(entry);
    json.end(explainer.finish());
    expect(written).toBe(expected);
    expect(JSON.parse(written).steps.length).toBeGreaterThan(2);
  });
});

describe('forEachLine', () => {
  it('gives the lines readline gives: LF, CRLF, a lone CR, a line over the 64 KB chunk, UTF-8 across a chunk edge, no final newline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lqsim-lines-'));
    try {
      const file = join(dir, 'capture.txt');
      const long = 'a'.repeat(65_535 - 6);
      const text = `first\r\n${long}é and on${'b'.repeat(70_000)}\nlone\rcr\r\r\n\n€uro\r\nlast`;
      writeFileSync(file, text);
      const expected: string[] = [];
      for await (const l of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) expected.push(l);
      const got: string[] = [];
      await forEachLine(file, (l) => void got.push(l));
      expect(got).toEqual(expected);
      expect(got.length).toBe(8);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
