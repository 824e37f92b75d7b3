// A scenario's size is bounded before it can cost memory or the parser's stack: counts of
// timeline entries, jobs and workers are refused on the parsed document, nesting on the text
// before the parser recurses into it, each with the file, the line and the limit.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { listScenarios } from '../../src/scenarios/catalog.ts';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import {
  MAX_FILE_BYTES,
  MAX_JOBS,
  MAX_NESTING,
  MAX_TIMELINE_ENTRIES,
  MAX_WORKERS,
  nestingTooDeep,
} from '../../src/scenarios/limits.ts';
import { parseScenario } from '../../src/scenarios/load.ts';

const HEAD = 'name: big\ntitle: t\njobs:\n  A: { class: App\\Jobs\\A }\n';

function refusal(source: string): ScenarioError {
  try {
    parseScenario(source, 'big.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('entry counts', () => {
  it('a timeline one entry over the limit is refused at the timeline, naming the count and the limit', () => {
    const source = `${HEAD}timeline:\n${'  - { at: 1, dispatch: A }\n'.repeat(MAX_TIMELINE_ENTRIES + 1)}`;
    expect(refusal(source).message).toBe(
      `big.yaml:6:3: timeline: ${MAX_TIMELINE_ENTRIES + 1} entries; a scenario may have at most ${MAX_TIMELINE_ENTRIES}`,
    );
    // At the limit it is a scenario like any other.
    const atLimit = `${HEAD}timeline:\n${'  - { at: 1, dispatch: A }\n'.repeat(MAX_TIMELINE_ENTRIES)}`;
    expect(parseScenario(atLimit, 'ok.yaml').spec.timeline).toHaveLength(MAX_TIMELINE_ENTRIES);
  });

  it('jobs and workers over their limits', () => {
    const jobs = Array.from({ length: MAX_JOBS + 1 }, (_, i) => `  J${i}: { class: A }\n`).join('');
    expect(refusal(`name: x\ntitle: t\ntimeline: []\njobs:\n${jobs}`).message).toBe(
      `big.yaml:5:3: jobs: ${MAX_JOBS + 1} jobs; a scenario may have at most ${MAX_JOBS}`,
    );
    const workers = Array.from({ length: MAX_WORKERS + 1 }, (_, i) => `  - { name: w${i} }\n`).join('');
    expect(refusal(`${HEAD}timeline: []\nworkers:\n${workers}`).message).toBe(
      `big.yaml:7:3: workers: ${MAX_WORKERS + 1} workers; a scenario may have at most ${MAX_WORKERS}`,
    );
  });

  it('text given in code over the file size limit is refused before parsing', () => {
    const source = `${HEAD}description: "${'x'.repeat(MAX_FILE_BYTES)}"\ntimeline: []\n`;
    expect(refusal(source).message).toMatch(/^big\.yaml: the scenario is \d+ bytes; a scenario file may be at most/);
  });
});

describe('nesting', () => {
  it('10,000 [ say nesting too deep at its line and column, not "Maximum call stack size exceeded"', () => {
    const source = `name: x\ntitle: t\ntimeline: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`;
    const e = refusal(source);
    // `timeline: ` is 10 characters; the top mapping is level 1, so the 64th [ opens level 65.
    expect(e.message).toBe(
      `big.yaml:3:${10 + MAX_NESTING}: lists and mappings nest too deep here (more than 64 levels)`,
    );
  });

  it('anchors and tags before each [ hide no level', () => {
    // Each "&a !!seq [" is 10 characters from column 11, so the 64th [, which opens level 65, is at
    // column 10 + 640. Without the anchor and tag skipped the first [ would not seem to start a value.
    const source = `name: x\ntitle: t\ntimeline: ${'&a !!seq ['.repeat(2000)}${']'.repeat(2000)}\n`;
    expect(refusal(source).message).toBe(
      `big.yaml:3:${10 + 10 * MAX_NESTING}: lists and mappings nest too deep here (more than 64 levels)`,
    );
  });

  it('deep block nesting too, at the line that goes too deep', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `${' '.repeat(i + 1)}- \n`).join('');
    const e = refusal(`name: x\ntitle: t\ntimeline:\n${lines}`);
    // Line 4 holds the first "- " (levels 2 and 3: the list, its item); each line after is a list
    // inside the item above it, one level deeper.
    expect(e.line).toBe(4 + (MAX_NESTING + 1 - 3));
    expect(e.detail).toMatch(/nest too deep/);
  });

  it('brackets in quotes, comments, plain values and block scalars open no level', () => {
    const brackets = '['.repeat(200);
    const source = [
      'name: x',
      `title: "${brackets}"`,
      `description: '${brackets} it''s'`,
      `# ${brackets}`,
      'jobs:',
      `  A: { class: App\\Jobs\\A }   # ${brackets}`,
      'timeline:',
      `  - { at: 0, dispatch: A, note: "${brackets}" }`,
      `  - { at: 1, dispatch: A, note: it's a [${brackets.slice(0, 100)} }`.replace(/\[+/, 'plain'),
      '  - at: 2',
      '    dispatch: A',
      '    note: |',
      ...Array.from({ length: 100 }, (_, i) => `      ${' '.repeat(i)}- ${brackets}`),
    ].join('\n');
    expect(nestingTooDeep(source)).toBeNull();
    expect(parseScenario(source, 'ok.yaml').spec.timeline).toHaveLength(3);
  });

  it('the shipped scenarios are far below the limit', async () => {
    for (const { file } of await listScenarios()) {
      const source = await readFile(file, 'utf8');
      expect(nestingTooDeep(source, 8), file).toBeNull();
    }
  });
});
