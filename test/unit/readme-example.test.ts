// The README's library example is examples/send-invoice.test.ts, which the suite runs: the two
// must stay the same text, so the copy-paste example in the README is known to pass.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

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
