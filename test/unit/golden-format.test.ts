// Golden files' format and reading: the version line read exactly, every parse error with its
// line, a truncated golden said to be one, and a file too large refused before it is read whole.
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffTraces } from '../../src/trace/diff.ts';
import {
  MAX_GOLDEN_BYTES,
  readGoldenFile,
  readGoldenFileSync,
  writeGoldenFile,
  writeGoldenFileSync,
} from '../../src/trace/golden-file.ts';
import { formatGolden, isGoldenText, parseGolden } from '../../src/trace/golden-text.ts';
import { normaliseTrace } from '../../src/trace/normalise.ts';
import { renderDiff } from '../../src/trace/render-diff.ts';
import { fromTimeline } from '../../src/trace/trace-like.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { timelineFixture } from '../fixtures/timeline-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'lqsim-golden-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = formatGolden(normaliseTrace(fromTimeline(timelineFixture())));

describe('the version line', () => {
  it('v1 exactly: v10 is not v1, v2 is a newer format, anything else is no golden', () => {
    expect(() => parseGolden(text)).not.toThrow();
    const v10 = text.replace('trace v1\n', 'trace v10\n');
    expect(isGoldenText(v10)).toBe(true);
    expect(() => parseGolden(v10)).toThrow(
      'line 1: a golden trace of format v10; this lqsim reads v1 (written by a newer lqsim: upgrade it, or write the golden again with this one)',
    );
    expect(() => parseGolden(text.replace('trace v1\n', 'trace v2\n'))).toThrow(
      /^line 1: a golden trace of format v2; this lqsim reads v1 \(written by a newer lqsim/,
    );
    expect(() => parseGolden(text.replace('trace v1\n', 'trace v1.5\n'))).toThrow(/^line 1: not a golden trace/);
    expect(() => parseGolden(text.replace('trace v1\n', 'trace v1 \n'))).toThrow(/^line 1: not a golden trace/);
  });
});

describe('errors carry their line', () => {
  it('a bad escape in a quoted argument', () => {
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('  RPUSH'));
    lines.splice(at + 1, 0, '  SET "bad \\q escape"');
    expect(() => parseGolden(lines.join('\n'))).toThrow(new RegExp(`^line ${at + 2}: bad string at column 7: `));
  });
});

describe('a truncated golden', () => {
  it('cut by lines: parses, and says it lacks its end line, in the diff header too', () => {
    const lines = text.split('\n');
    expect(lines.at(-2)).toBe('# end of trace: 3 steps, 10 commands');
    const cut =
      lines
        .slice(
          0,
          lines.findIndex((l) => l.startsWith('step 3')),
        )
        .join('\n') + '\n';
    const trace = parseGolden(cut);
    expect(trace.notes).toEqual([
      'the golden has no "# end of trace" line (2 steps and 9 commands): it may be truncated, or written by an older lqsim',
    ]);
    const diff = renderDiff(diffTraces(trace, parseGolden(text)), { chalk: makeChalk(0), labels: ['g', 'run'] });
    expect(diff.split('\n')[2]).toBe(`~ a: ${trace.notes![0]}`);
  });

  it('cut mid-line: the parse error says the file ends there', () => {
    const cut = text.slice(0, text.indexOf('"attempts":0') + 4);
    expect(() => parseGolden(cut)).toThrow(
      /^line \d+: unbalanced JSON object at column \d+ \(the file ends on this line without its "# end of trace" line: truncated\?\)$/,
    );
  });

  it('an end line whose counts differ (a step deleted by hand) is said', () => {
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('step 3'));
    lines.splice(at, 2);
    expect(parseGolden(lines.join('\n')).notes).toEqual([
      `line ${lines.length - 1} says the golden holds 3 steps and 10 commands, but it has 2 steps and 9 commands: truncated or edited by hand?`,
    ]);
  });

  it('an intact golden has no notes, and an older one (no end line) still reads the same', () => {
    expect(parseGolden(text).notes).toBeUndefined();
    const old = text.replace(/# end of trace: .*\n$/, '');
    expect(parseGolden(old).steps).toEqual(parseGolden(text).steps);
  });
});

describe('size', () => {
  it('a golden over the limit is refused before it is read, with its size', async () => {
    const big = join(dir, 'big.golden');
    writeFileSync(big, text);
    truncateSync(big, MAX_GOLDEN_BYTES + 1); // sparse: no memory or disk spent
    const message = `${big}: 16.0 MB, more than a golden trace may be (16.0 MB): is it a golden at all? A scenario this long is better checked with assertions than reviewed as a golden`;
    await expect(readGoldenFile(big)).rejects.toThrow(message);
    expect(() => readGoldenFileSync(big)).toThrow(message);
    truncateSync(big, MAX_GOLDEN_BYTES); // at the limit: read (and refused for what it holds, not its size)
    await expect(readGoldenFile(big)).rejects.toThrow(/^.*big\.golden: line \d+: /);
  });

  it('a missing file: null from the sync reader, a one-line error from the other', async () => {
    expect(readGoldenFileSync(join(dir, 'none.golden'))).toBeNull();
    await expect(readGoldenFile(join(dir, 'none.golden'))).rejects.toThrow(
      `${join(dir, 'none.golden')}: cannot read: ENOENT`,
    );
    await expect(readGoldenFile(dir)).rejects.toThrow(`${dir}: not a regular file`);
  });
});

describe('a golden that cannot be written', () => {
  it('is named in the error (not the temporary file beside it), with nothing left behind', async () => {
    const trace = normaliseTrace(fromTimeline(timelineFixture()));
    const file = join(dir, 'plain');
    writeFileSync(file, 'not a folder');
    try {
      for (const target of [join(file, 'x.golden'), join(dir, 'gone', 'x.golden')]) {
        const code = target.startsWith(file) ? 'ENOTDIR' : 'ENOENT';
        await expect(writeGoldenFile(target, trace)).rejects.toThrow(`${target}: cannot write: ${code}`);
        expect(() => writeGoldenFileSync(target, trace)).toThrow(`${target}: cannot write: ${code}`);
      }
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      rmSync(file);
    }
  });
});
