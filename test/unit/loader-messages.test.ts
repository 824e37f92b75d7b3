// The loader's words for two mistakes it used to misname: a list item indented one space too little
// (said to be a value with ": " to quote), and `laravel: 8` unquoted (refused though it names a
// profile plainly; only a number whose text YAML loses, 5.10 read as 5.1, is ambiguous).
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/scenarios/errors.ts';
import { checkProfileOverride, parseScenario } from '../../src/scenarios/load.ts';

function refusal(source: string): ScenarioError {
  try {
    parseScenario(source, 's.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('accepted');
}

const scenario = (laravel: string): string =>
  `name: s\ntitle: t\nlaravel: ${laravel}\njobs:\n  A: { class: App\\Jobs\\A }\ntimeline:\n  - { at: 0, dispatch: A }\n`;

describe('a list item indented otherwise than the one above it', () => {
  it('a timeline item one space to the left: the indentation at its line, not quoting', () => {
    const source = [
      'name: s',
      'title: t',
      'jobs:',
      '  A: { class: App\\Jobs\\A }',
      'timeline:',
      '  - { at: 0, dispatch: A }',
      ' - { at: 1, dispatch: A }',
    ].join('\n');
    expect(refusal(source).message).toBe(
      's.yaml:7:2: this list item is indented 1 space, the item above it (line 6) 2 spaces: items of one list start in the same column',
    );
  });

  it('a worker item after a multi-line one, found past the lines of the item above', () => {
    const source = [
      'name: s',
      'title: t',
      'workers:',
      '  - name: w1',
      '    tries: 3',
      '',
      ' - name: w2',
      'timeline: []',
    ].join('\n');
    expect(refusal(source).message).toBe(
      's.yaml:7:2: this list item is indented 1 space, the item above it (line 4) 2 spaces: items of one list start in the same column',
    );
  });

  it('a value with ": " still gets the quoting hint', () => {
    const source = 'name: s\ntitle: t\ntimeline:\n  - at: 0\n    note: tries 3: no release\n';
    expect(refusal(source).detail).toMatch(/a value containing ": " must be quoted/);
  });
});

describe('laravel: as a number', () => {
  it.each([
    ['8', '8'],
    ['13', '13'],
    ['5.7', '5.7'],
    ['5.3', '5.3'],
    ['"8"', '8'],
  ])('laravel: %s names profile %s', (written, profile) => {
    expect(parseScenario(scenario(written), 's.yaml').spec.laravel).toBe(profile);
  });

  it('a number whose text YAML does not keep is refused, saying what YAML read', () => {
    expect(refusal(scenario('5.10')).message).toBe(
      's.yaml:3:10: laravel: YAML reads 5.10 as the number 5.1, which names no profile; write the version in quotes: one of "5.3", "5.7", "8", "13"',
    );
    expect(refusal(scenario('5.70')).message).toBe(
      's.yaml:3:10: laravel: YAML reads 5.70 as the number 5.7; write "5.7" in quotes if that is the version meant',
    );
    expect(refusal(scenario('8.0')).detail).toBe(
      'YAML reads 8.0 as the number 8; write "8" in quotes if that is the version meant',
    );
  });

  it('a number that names no profile is refused like text that names none', () => {
    expect(refusal(scenario('9')).message).toBe('s.yaml:3:10: laravel: expected one of 5.3 | 5.7 | 8 | 13, got 9');
    expect(refusal(scenario('"9"')).message).toBe('s.yaml:3:10: laravel: expected one of 8 | 13 | 5.3 | 5.7, got "9"');
  });
});

describe('--laravel that the scenario cannot run under', () => {
  it('is found from the file alone (so the CLI refuses before it starts a Redis), at the entry', () => {
    const source = [
      'name: s',
      'title: t',
      'laravel: "8"',
      'jobs:',
      '  A: { class: App\\Jobs\\A }',
      'timeline:',
      '  - { at: 0, chain: [A, A] }',
    ].join('\n');
    const loaded = parseScenario(source, 's.yaml');
    expect(() => checkProfileOverride(loaded, '8')).not.toThrow();
    expect(() => checkProfileOverride(loaded, undefined)).not.toThrow();
    expect(() => checkProfileOverride(loaded, '5.7')).toThrow(
      /^s\.yaml:7:21: timeline\.0\.chain: Bus::chain\(\) arrived in Laravel 8\.0/,
    );
  });
});
