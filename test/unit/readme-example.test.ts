// The library examples shown in the README and docs/library.md are examples/first-test.test.ts and
// examples/send-invoice.test.ts, which the suite runs: each page and its file must stay the same
// text, so the copy-paste examples are known to pass. The scenarios shown (the README's small one,
// docs/scenarios.md's "Writing a scenario") validate, the latter using every timeline entry kind.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ENTRY_KINDS } from '../../src/scenarios/entries/index.ts';
import { parseScenario } from '../../src/scenarios/load.ts';

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

/** The first fenced block in `lang` after `heading` in `file`. */
function firstBlock(file: string, heading: string, lang: string): string | undefined {
  const text = `\n${read(file)}`;
  const at = text.indexOf(`\n${heading}\n`);
  expect(at, `${file} has a heading "${heading}"`).toBeGreaterThanOrEqual(0);
  return new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\`\\n`).exec(text.slice(at))?.[1];
}

/** An example file as the page shows it: without its leading `// ` comment lines. */
const shown = (file: string): string =>
  read(file)
    .split('\n')
    .filter((l) => !l.startsWith('// '))
    .join('\n')
    .trimStart();

it('README "Put it in a test" shows examples/first-test.test.ts verbatim', () => {
  const block = firstBlock('README.md', '## Put it in a test', 'ts');
  expect(block).toBeDefined();
  expect(shown('examples/first-test.test.ts')).toBe(block);
});

it('docs/library.md "Use it as a library" shows examples/send-invoice.test.ts verbatim', () => {
  const block = firstBlock('docs/library.md', '# Use it as a library', 'ts');
  expect(block).toBeDefined();
  expect(shown('examples/send-invoice.test.ts')).toBe(block);
});

it('README "Write a scenario" is a scenario that validates', () => {
  const block = firstBlock('README.md', '## Write a scenario', 'yaml');
  expect(block).toBeDefined();
  const { spec } = parseScenario(block!, 'runs-again.yaml');
  expect(spec.workers).toHaveLength(2);
});

it('docs/scenarios.md "Writing a scenario" is a scenario that validates, using every timeline entry kind', () => {
  const block = firstBlock('docs/scenarios.md', '## Writing a scenario', 'yaml');
  expect(block).toBeDefined();
  const { spec } = parseScenario(block!, 'my-flow.yaml');
  expect(new Set(spec.timeline.map((e) => e.kind))).toEqual(new Set(Object.keys(ENTRY_KINDS)));
});
