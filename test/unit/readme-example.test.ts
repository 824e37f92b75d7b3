// The README's library example is examples/send-invoice.test.ts, which the suite runs: the two
// must stay the same text, so the copy-paste example in the README is known to pass. The
// "Writing a scenario" example validates and shows every timeline entry kind.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ENTRY_KINDS } from '../../src/scenarios/entries/index.ts';
import { parseScenario } from '../../src/scenarios/load.ts';

it('README "Use it as a library" shows examples/send-invoice.test.ts verbatim', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it as a library'));
  const block = /```ts\n([\s\S]*?)```\n/.exec(section)?.[1];
  const file = readFileSync(new URL('../../examples/send-invoice.test.ts', import.meta.url), 'utf8');
  expect(block).toBeDefined();
  expect(
    file
      .split('\n')
      .filter((l) => !l.startsWith('// '))
      .join('\n')
      .trimStart(),
  ).toBe(block);
});

it('README "Writing a scenario" is a scenario that validates, using every timeline entry kind', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Writing a scenario'));
  const block = /```yaml\n([\s\S]*?)```\n/.exec(section)?.[1];
  expect(block).toBeDefined();
  const { spec } = parseScenario(block!, 'my-flow.yaml');
  expect(new Set(spec.timeline.map((e) => e.kind))).toEqual(new Set(Object.keys(ENTRY_KINDS)));
});
