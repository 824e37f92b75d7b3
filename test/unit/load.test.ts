import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCENARIOS_DIR, listScenarios, resolveScenario } from '../../src/scenarios/catalog.ts';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { loadScenarioFile, parseScenario } from '../../src/scenarios/load.ts';

const BAD = fileURLToPath(new URL('../fixtures/bad-scenarios/', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/lqsim.js', import.meta.url));
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Fixture → where the error must point. Written by reading each fixture (1-based line and
 * column of the offending text), not by running the loader.
 */
const CASES: Record<string, { line: number; column: number; field: string; detail: string }> = {
  'bad-indent': { line: 6, column: 4, field: '', detail: 'same column' },
  'tab-indent': { line: 4, column: 1, field: '', detail: 'Tabs' },
  // line 9 is `    note: tries 3: no release`; the nested mapping starts at the value, column 11.
  'unquoted-colon': { line: 9, column: 11, field: '', detail: 'a value containing ": " must be quoted' },
  // line 11 is `    connection: nope`; the value starts at column 17.
  'unknown-size-connection': {
    line: 11,
    column: 17,
    field: 'timeline.1.connection',
    detail: 'unknown connection "nope"',
  },
  'unclosed-quote': { line: 2, column: 8, field: '', detail: 'never closed' },
  'duplicate-key': { line: 7, column: 5, field: '', detail: '"tries" appears twice' },
  'not-a-mapping': { line: 2, column: 1, field: '', detail: 'got a list' },
  empty: { line: 1, column: 1, field: '', detail: 'empty' },
  'two-documents': { line: 3, column: 1, field: '', detail: 'one YAML document' },
  'unresolved-alias': { line: 2, column: 8, field: '', detail: 'Unresolved alias' },
  'alias-bomb': { line: 3, column: 8, field: '', detail: 'alias bomb' },
  'unknown-top-level-field': {
    line: 3,
    column: 1,
    field: 'descripton',
    detail: 'unknown field "descripton" (did you mean "description"?)',
  },
  'worker-field-typo': {
    line: 5,
    column: 5,
    field: 'workers.0.triess',
    detail: 'unknown field "triess" (did you mean "tries"?)',
  },
  'timeline-entry-typo': {
    line: 9,
    column: 5,
    field: 'timeline.0.cuont',
    detail: 'unknown field "cuont" (did you mean "count"?)',
  },
  'stop-entry-extra-field': { line: 9, column: 24, field: 'timeline.1.count', detail: 'unknown field "count"' },
  'tries-as-string': { line: 5, column: 12, field: 'workers.0.tries', detail: 'expected a whole number, got "3"' },
  'negative-time': { line: 7, column: 9, field: 'timeline.0.at', detail: 'expected a number >= 0, got -5' },
  'absurd-time': { line: 9, column: 12, field: 'timeline.0.delay', detail: '<= 315360000 (10 years), got 400000000' },
  // Times are virtual seconds to the millisecond (0.5 is fine): a fourth decimal is refused.
  'fractional-seconds': {
    line: 7,
    column: 9,
    field: 'timeline.0.at',
    detail: 'expected at most 3 decimals (the virtual clock counts milliseconds), got 1.2345',
  },
  'worker-start-too-precise': {
    line: 5,
    column: 12,
    field: 'workers.0.start',
    detail: 'expected at most 3 decimals (the virtual clock counts milliseconds), got 0.0005',
  },
  'until-too-precise': {
    line: 3,
    column: 8,
    field: 'until',
    detail: 'expected at most 3 decimals (the virtual clock counts milliseconds), got 10.0001',
  },
  'laravel-unquoted': { line: 3, column: 10, field: 'laravel', detail: 'write "5.7" in quotes' },
  'bad-class-name': { line: 5, column: 12, field: 'jobs.send.class', detail: 'PHP class name' },
  'bad-job-name': { line: 4, column: 3, field: 'jobs.send mail', detail: 'invalid name "send mail"' },
  'attempt-two-outcomes': { line: 8, column: 9, field: 'jobs.send.attempts.1', detail: 'at most one outcome' },
  'bad-attempt-string': {
    line: 6,
    column: 25,
    field: 'jobs.send.attempts.1',
    detail: 'expected one of succeed | fail | delete',
  },
  'count-too-large': { line: 9, column: 12, field: 'timeline.0.count', detail: '<= 100000, got 250000' },
  'empty-timeline': { line: 6, column: 11, field: 'timeline', detail: 'at least 1 entry' },
  'timeline-entry-not-a-mapping': { line: 7, column: 5, field: 'timeline.0', detail: 'expected a mapping' },
  'dispatch-without-jobs': {
    line: 5,
    column: 15,
    field: 'timeline.0.dispatch',
    detail: 'unknown job "send" (no job is defined)',
  },
  'missing-timeline': { line: 3, column: 1, field: 'timeline', detail: 'missing required field "timeline"' },
  'worker-queue-empty-name': { line: 5, column: 12, field: 'workers.0.queue', detail: 'comma-separated queue names' },
  // Cross-reference checks (the file passes zod).
  'unknown-job': {
    line: 8,
    column: 15,
    field: 'timeline.0.dispatch',
    detail: 'unknown job "sned" (did you mean "send"?)',
  },
  'unknown-worker-in-stop': { line: 12, column: 11, field: 'timeline.1.stop', detail: 'unknown worker "w2"' },
  'unknown-connection': {
    line: 8,
    column: 17,
    field: 'workers.0.connection',
    detail: 'unknown connection "cache" (defined: redis)',
  },
  'unknown-dispatch-connection': {
    line: 9,
    column: 17,
    field: 'timeline.0.connection',
    detail: 'unknown connection "redis-cache"',
  },
  'unknown-note-actor': { line: 13, column: 12, field: 'timeline.1.actor', detail: 'unknown actor' },
  'duplicate-worker-names': { line: 6, column: 11, field: 'workers.2.name', detail: 'duplicate worker name "w1"' },
  'worker-named-dispatcher': { line: 4, column: 13, field: 'workers.0.name', detail: '"dispatcher"' },
  'entry-after-until': { line: 10, column: 9, field: 'timeline.1.at', detail: 'after until (60)' },
  'total-count-too-large': { line: 8, column: 37, field: 'timeline.1.count', detail: 'at most 100000' },
  'dispatch-queue-list': { line: 9, column: 12, field: 'timeline.0.queue', detail: 'one queue name' },
  // Chains. line 8 `  - { at: 0, dispatch: fetch, chain: [parse] }`: the list at column 38, `parse` at 39.
  'chain-on-laravel-5.3': {
    line: 8,
    column: 38,
    field: 'timeline.0.chain',
    detail: 'job chains arrived in Laravel 5.5 (Bus\\Queueable::chain); the 5.3 profile has none',
  },
  'chain-verbatim-command': {
    line: 8,
    column: 39,
    field: 'timeline.0.chain.0',
    detail: 'job parse gives data.command verbatim',
  },
  // line 9 `    chain: [fetch, parse]`: the list at column 12.
  'bus-chain-on-laravel-5.7': {
    line: 9,
    column: 12,
    field: 'timeline.0.chain',
    detail: 'Bus::chain() arrived in Laravel 8.0; the 5.7 profile chains with ->chain() only',
  },
  // line 9 `    chain: [fetch, { job: prase, queue: feeds }]`: `prase` at column 27.
  'chain-unknown-job': {
    line: 9,
    column: 27,
    field: 'timeline.0.chain.1.job',
    detail: 'unknown job "prase" (did you mean "parse"?)',
  },
  // line 7 `  - { at: 0, chain: [fetch], queu: feeds }`: a chain entry (not a note), `queu` at column 30.
  'chain-entry-typo': {
    line: 7,
    column: 30,
    field: 'timeline.0.queu',
    detail: 'unknown field "queu" (did you mean "queue"?)',
  },
  // Dispatch properties, requests and `every` (positions counted by hand).
  // line 11 `      invoiceid: { from: 1001 }`: the value at column 18.
  'unknown-dispatch-property': {
    line: 11,
    column: 18,
    field: 'timeline.0.properties.invoiceid',
    detail: 'unknown property of jobs.invoice "invoiceid" (did you mean "invoiceId"?)',
  },
  // line 7 `  - { at: 0, dispatch: invoice, properties: { invoiceId: 7 } }`: `7` at column 58.
  'undeclared-dispatch-property': {
    line: 7,
    column: 58,
    field: 'timeline.0.properties.invoiceId',
    detail: 'jobs.invoice declares no properties: add invoiceId under jobs.invoice.properties',
  },
  // line 9 `      - { dispatch: reciept, delay: 60 }`: `reciept` at column 21.
  'request-unknown-job': {
    line: 9,
    column: 21,
    field: 'timeline.0.request.1.dispatch',
    detail: 'unknown job "reciept" (did you mean "receipt"?)',
  },
  // line 9 `        every: 5`: a call of a request has no `every` (each instance would be its own request).
  'request-call-every': { line: 9, column: 9, field: 'timeline.0.request.0.every', detail: 'unknown field "every"' },
  // line 7 `  - { at: 10, dispatch: invoice, count: 250, every: 1 }`: `1` at column 53; 10 + 249 = 259.
  'every-after-until': {
    line: 7,
    column: 53,
    field: 'timeline.0.every',
    detail: 'the last of 250 instances is dispatched at 259, after until (30)',
  },
  // line 8: `0.5` at column 85.
  'sequence-step-float': {
    line: 8,
    column: 85,
    field: 'timeline.0.properties.invoiceId.step',
    detail: 'expected a whole number, got 0.5',
  },
  // Cycles and numbers YAML allows but a scenario cannot use (positions counted by hand).
  // line 7 `  - &entry { at: 0, dispatch: send, note: *entry }`: the alias starts at column 43.
  'alias-cycle': { line: 7, column: 43, field: 'timeline.0.note', detail: 'expected text, got a mapping' },
  // line 4 `  send: { class: ..., properties: *jobs }`: the alias is the jobs mapping, whose entry
  // `send` (the flow mapping at column 9) is reported as the offending property value.
  'properties-cycle': { line: 4, column: 9, field: 'jobs.send.properties.send', detail: 'got a mapping' },
  // line 7 `  - { at: .inf, dispatch: send }`: `.inf` at column 11.
  'infinite-time': { line: 7, column: 11, field: 'timeline.0.at', detail: 'got Infinity' },
  // line 3 `workers: [{ name: w1, sleep: .nan }]`: `.nan` at column 30.
  'nan-sleep': { line: 3, column: 30, field: 'workers.0.sleep', detail: 'got NaN' },
  // line 7 `  - { at: 0, dispatch: send, count: 99999999999999999999999 }`: the number at column 37.
  // The field's own bound, not zod's exact-integer limit (2^53 - 1), which means nothing to an author.
  'count-unsafe': { line: 7, column: 37, field: 'timeline.0.count', detail: 'expected a whole number <= 100000' },
};

async function loadError(file: string): Promise<ScenarioError> {
  try {
    await loadScenarioFile(file);
  } catch (err) {
    if (err instanceof ScenarioError) return err;
    throw err;
  }
  throw new Error(`${file} loaded without an error`);
}

describe('bad scenarios', () => {
  it('has an expectation for every fixture and a fixture for every expectation', async () => {
    const files = (await readdir(BAD)).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length));
    expect(files.sort()).toEqual(Object.keys(CASES).sort());
  });

  for (const [name, want] of Object.entries(CASES)) {
    it(`${name} → ${want.line}:${want.column} ${want.field}`, async () => {
      const file = join(BAD, `${name}.yaml`);
      const err = await loadError(file);
      expect({ file: err.file, line: err.line, column: err.column, field: err.field }).toEqual({
        file,
        line: want.line,
        column: want.column,
        field: want.field,
      });
      expect(err.detail).toContain(want.detail);
      const prefix =
        want.field === ''
          ? `${file}:${want.line}:${want.column}: `
          : `${file}:${want.line}:${want.column}: ${want.field}: `;
      expect(err.message.startsWith(prefix)).toBe(true);
    });
  }

  it('through the CLI: one `lqsim: file:line:col: ...` line per fixture, exit 2, no stack trace', async () => {
    const names = Object.keys(CASES).sort();
    const child = spawn(process.execPath, [CLI, 'validate', ...names.map((n) => join(BAD, `${n}.yaml`))], {
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    // Each file's first line is its problem above; a file with more problems says each on a line of its own.
    const lines = stderr.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(/^lqsim: \S+\.yaml:\d+:\d+: /);
    const firsts = names.map((n) => lines.find((l) => l.startsWith(`lqsim: ${join(BAD, `${n}.yaml`)}:`)));
    expect(firsts).toEqual(
      names.map((n) =>
        expect.stringMatching(
          new RegExp(`^lqsim: ${escapeRegExp(join(BAD, `${n}.yaml`))}:${CASES[n]!.line}:${CASES[n]!.column}: `),
        ),
      ),
    );
  });

  it('every message is a single line', async () => {
    for (const name of Object.keys(CASES)) {
      const err = await loadError(join(BAD, `${name}.yaml`));
      expect(err.message, name).not.toMatch(/[\r\n]/);
      expect(err.message.length, name).toBeLessThan(300);
    }
  });
});

describe('parseScenario', () => {
  const MINIMAL = [
    'name: minimal',
    'title: One job, one worker',
    'workers:',
    '  - name: w1',
    'jobs:',
    '  send:',
    "    class: 'App\\Jobs\\SendEmail'",
    'timeline:',
    '  - at: 0',
    '    dispatch: send',
    '',
  ].join('\n');

  it('applies the defaults to a minimal scenario', () => {
    const { spec, file, source } = parseScenario(MINIMAL, 'minimal.yaml');
    expect(file).toBe('minimal.yaml');
    expect(source).toBe(MINIMAL);
    expect(spec.laravel).toBe('5.7');
    expect(spec.connections).toEqual({ redis: { queue: 'default', retry_after: 90, block_for: null } });
    // client and prefix are left to the Laravel profile (the runner fills them in).
    expect(spec.redis).toEqual({ database: 0, cache_database: 1 });
    expect(spec.workers).toEqual([
      // tries is left to the profile: queue:work's default is 0 up to 5.8 and 1 from 6.0.
      { name: 'w1', timeout: 60, sleep: 3, delay: 0, once: false, start: 0, restart: true },
    ]);
    expect(spec.jobs.send).toMatchObject({
      class: 'App\\Jobs\\SendEmail',
      tries: null,
      timeout: null,
      attempts: ['succeed'],
    });
    expect(spec.timeline).toEqual([{ kind: 'dispatch', at: 0, dispatch: 'send', count: 1 }]);
  });

  it('accepts a full scenario using every entry kind', () => {
    const source = [
      'name: full',
      'title: Everything',
      'laravel: "5.3"',
      'until: 100',
      'connections:',
      '  redis: { queue: default, retry_after: 30 }',
      '  slow: { queue: slow, block_for: 5 }',
      'workers:',
      '  - { name: w1, connection: slow, queue: "high,slow", tries: 3 }',
      'jobs:',
      '  send:',
      '    class: App\\Jobs\\SendEmail',
      '    attempts: [{ run: 5, throw: boom }, { release: 10 }, fail]',
      'timeline:',
      '  - { at: 0, dispatch: send, queue: high, connection: slow, count: 2 }',
      '  - { at: 10, note: look here, actor: w1, on: pop }',
      '  - { at: 20, note: and here, actor: dispatcher }',
      '  - { at: 100, stop: w1 }',
    ].join('\n');
    const { spec } = parseScenario(source, 'full.yaml');
    expect(spec.laravel).toBe('5.3');
    expect(spec.jobs.send?.attempts).toEqual([{ run: 5, throw: 'boom' }, { run: 0, release: 10 }, 'fail']);
    expect(spec.timeline).toHaveLength(4);
  });

  it('either loads or throws a one-line ScenarioError, whatever the input', () => {
    const outcome = (source: string): true => {
      try {
        parseScenario(source, 'fuzz.yaml');
      } catch (err) {
        expect(err).toBeInstanceOf(ScenarioError);
        const { line, column, message } = err as ScenarioError;
        expect(message).not.toMatch(/[\r\n]/);
        expect(line).toBeGreaterThanOrEqual(1);
        expect(column).toBeGreaterThanOrEqual(1);
      }
      return true;
    };
    // Arbitrary text, and the minimal scenario with a slice cut out or a character put in.
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), outcome), { numRuns: 200 });
    const edits = fc.tuple(
      fc.nat(MINIMAL.length),
      fc.nat(12),
      fc.constantFrom('', ' ', '\t', ':', '-', '"', "'", '&a ', '*a', '[', '{', '#', '\n', '0'),
    );
    fc.assert(
      fc.property(edits, ([at, cut, insert]) => outcome(MINIMAL.slice(0, at) + insert + MINIMAL.slice(at + cut))),
      { numRuns: 300 },
    );
  });

  it('formats the message as file:line:column: field: detail', () => {
    try {
      parseScenario('name: x\ntitle: t\njobs: {a: {class: A}}\ntimeline: [{at: 0, dispatch: b}]\n', 'x.yaml');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ScenarioError);
      expect((err as Error).message).toBe('x.yaml:4:30: timeline.0.dispatch: unknown job "b" (defined: a)');
    }
  });

  it('reports an unreadable file with no position', async () => {
    const err = await loadError('/nonexistent/nowhere.yaml');
    expect([err.line, err.column, err.field]).toEqual([0, 0, '']);
    expect(err.message).toMatch(/^\/nonexistent\/nowhere\.yaml: cannot read: .*ENOENT/);
  });
});

describe('catalog', () => {
  let dir: string;
  const scenario = (name: string, title: string, laravel = '5.7') =>
    `name: ${name}\ntitle: ${title}\nlaravel: "${laravel}"\njobs:\n  a: { class: A }\ntimeline:\n  - { at: 0, dispatch: a }\n`;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lqsim-catalog-'));
    await writeFile(join(dir, 'zeta-retry.yaml'), scenario('zeta-retry', 'Retries'));
    await writeFile(join(dir, 'alpha-basic.yaml'), scenario('alpha-basic', 'The basics', '5.3'));
    await writeFile(join(dir, 'notes.txt'), 'not a scenario');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('SCENARIOS_DIR is the repository scenarios folder', () => {
    expect(SCENARIOS_DIR).toBe(fileURLToPath(new URL('../../scenarios', import.meta.url)));
  });

  it('lists every .yaml file, sorted by name', async () => {
    expect(await listScenarios(dir)).toEqual([
      { name: 'alpha-basic', title: 'The basics', file: join(dir, 'alpha-basic.yaml'), laravel: '5.3' },
      { name: 'zeta-retry', title: 'Retries', file: join(dir, 'zeta-retry.yaml'), laravel: '5.7' },
    ]);
  });

  it('throws the ScenarioError of an invalid scenario', async () => {
    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, 'name: broken\ntitle: t\njobs: {}\ntimeline: [{ at: 0, dispatch: a }]\n');
    await expect(listScenarios(dir)).rejects.toMatchObject({
      file: broken,
      line: 4,
      column: 31,
      field: 'timeline.0.dispatch',
    });
  });

  it('throws when a scenario name does not match its file name', async () => {
    const file = join(dir, 'gamma.yaml');
    await writeFile(file, scenario('delta', 'Mismatch'));
    await expect(listScenarios(dir)).rejects.toMatchObject({ file, line: 1, column: 7, field: 'name' });
  });

  it('resolves a name to <dir>/<name>.yaml', async () => {
    expect(await resolveScenario('zeta-retry', dir)).toBe(join(dir, 'zeta-retry.yaml'));
    expect(await resolveScenario('zeta-retry.yaml', dir)).toBe(join(dir, 'zeta-retry.yaml'));
  });

  it('prefers an existing file path', async () => {
    const path = join(dir, 'alpha-basic.yaml');
    expect(await resolveScenario(path, join(dir, 'elsewhere'))).toBe(path);
  });

  it('names the closest scenarios when there is no match', async () => {
    const err: unknown = await resolveScenario('zeta-rety', dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioError);
    expect(err).toMatchObject({ file: 'zeta-rety', line: 0, column: 0, field: '' });
    expect((err as Error).message).toBe(
      'zeta-rety: no such scenario; run lqsim list to see them (did you mean "zeta-retry"?)',
    );
    await expect(resolveScenario('nothing-like-it', dir)).rejects.toThrow(
      /^nothing-like-it: no such scenario; run lqsim list to see them$/,
    );
  });
});

describe('a file with several problems', () => {
  it('reports every one, each at its own line and column, in file order', () => {
    const source = [
      'name: x', // 1
      'title: y', // 2
      'workers:', // 3
      '  - { name: worker-1, tries: -1, slep: 3 }', // 4: tries at col 30, slep at col 34
      'timeline:', // 5
      '  - { at: -1, dispatch: A }', // 6: at at col 11
    ].join('\n');
    let error: unknown;
    try {
      parseScenario(source, 'multi.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const all = [error as ScenarioError, ...(error as ScenarioError).also].map((e) => e.message);
    expect(all).toEqual([
      'multi.yaml:4:30: workers.0.tries: expected a whole number >= 0, got -1',
      'multi.yaml:4:34: workers.0.slep: unknown field "slep" (did you mean "sleep"?)',
      'multi.yaml:6:11: timeline.0.at: expected a number >= 0, got -1',
    ]);
  });
});
