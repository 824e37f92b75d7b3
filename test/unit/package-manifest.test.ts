// What package.json promises and what the README says of it agree; the package itself, packed and
// installed, is test/integration/package.test.ts.
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { expect, it } from 'vitest';
import { links, PAGES } from '../helpers/doc-links.ts';

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  files: string[];
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

it('the package carries every page the README links to, and what those pages link to', () => {
  // npm adds these to any package; the rest must be under an entry of `files`.
  const always = ['README.md', 'LICENSE', 'package.json'];
  const ships = (path: string): boolean =>
    always.includes(path) || pkg.files.some((f) => path === f || path.startsWith(`${f}/`));
  const missing = PAGES.flatMap((page) =>
    links(read(page))
      .map(({ target }) => target.split('#')[0]!)
      .map((path) => (path === '' ? page : normalize(join(dirname(page), path))))
      .filter((path) => !ships(path))
      .map((path) => `${page} → ${path}`),
  );
  expect(missing).toEqual([]);
});
