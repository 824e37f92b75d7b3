// What package.json promises and what the README says of it agree; the package itself, packed and
// installed, is test/integration/package.test.ts.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};

it("the README's Quick start names the Node version `engines` asks for", () => {
  const min = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
  expect(min).toBeDefined();
  const quickStart = read('README.md').split('\n## Quick start\n')[1]!.split('\n## ')[0]!;
  expect(quickStart.replace(/\s+/g, ' ')).toContain(`(Node ${min} or later, npm;`);
  expect(quickStart).not.toMatch(/Node \d+\+/);
});

it('a package runs its bundle: nothing only a clone needs is a dependency', () => {
  for (const name of ['tsx', 'esbuild', 'typescript', 'testcontainers', '@testcontainers/redis'])
    expect(pkg.dependencies[name], name).toBeUndefined();
});
