// The layer rules of eslint.config.js (lint/layers.js) judge the file an import resolves to, not
// its text: the three bypasses a specifier regex let through (a `./..` detour, a detour through a
// sibling folder, a dynamic import) are refused, and the same imports pass where the matrix allows
// them. Linted through ESLint's Node API with the project's own config, as `npm run lint` does.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/**
 * The rule ids ESLint reports for `code` as if it were the file `path` (nothing is written). `path`
 * is a real file of the layer, so typed linting's project service finds it (and reads `code`).
 */
async function problems(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, path) });
  return (result?.messages ?? []).map((m) => `${m.line}:${m.ruleId ?? m.message}`);
}

describe('layers, judged on resolved files', { timeout: 60_000 }, () => {
  it("refuses src/output importing the TUI through './../tui/x'", async () => {
    expect(await problems('src/output/colour.ts', "export type { Theme } from './../tui/theme.ts';\n")).toEqual([
      '1:import-x/no-restricted-paths',
    ]);
  });

  it("refuses src/sim importing the TUI through './profiles/../../tui/x'", async () => {
    const code = "import type { Theme } from './profiles/../../tui/theme.ts';\nexport type T = Theme;\n";
    expect(await problems('src/sim/clock.ts', code)).toEqual(['1:import-x/no-restricted-paths']);
  });

  it('refuses a dynamic import of the TUI from src/output', async () => {
    const code = "export async function theme(): Promise<unknown> {\n  return await import('../tui/theme.ts');\n}\n";
    expect(await problems('src/output/colour.ts', code)).toEqual(['2:import-x/no-restricted-paths']);
  });

  it('refuses a dynamic import it cannot resolve (not a literal)', async () => {
    const code = "const where = '../tui/theme.ts';\nexport const theme = (): Promise<unknown> => import(where);\n";
    expect(await problems('src/output/colour.ts', code)).toEqual(['2:no-restricted-syntax']);
  });

  it("refuses an inline type import (`typeof import('...')`), which the layer rules do not see", async () => {
    const code = "export type Ui = typeof import('../tui/theme.ts');\n";
    expect(await problems('src/output/colour.ts', code)).toEqual(['1:no-restricted-syntax']);
  });

  it('refuses the redis package in a view, and any package in the model', async () => {
    expect(await problems('src/tui/theme.ts', "export { createClient } from 'redis';\n")).toEqual([
      '1:import-x/no-restricted-paths',
    ]);
    expect(await problems('src/sim/clock.ts', "export { parse } from 'yaml';\n")).toEqual([
      '1:import-x/no-restricted-paths',
    ]);
  });

  it('refuses anything of the repository outside src/ (a test helper)', async () => {
    expect(await problems('src/cli/list.ts', "export { heapMb } from '../../test/helpers/heap.ts';\n")).toEqual([
      '1:import-x/no-restricted-paths',
    ]);
  });

  it('lets the same imports through where the matrix allows them', async () => {
    const code =
      "export type { Theme } from './../tui/theme.ts';\nexport const ui = (): Promise<unknown> => import('../tui/theme.ts');\n";
    expect(await problems('src/cli/list.ts', code)).toEqual([]);
    expect(await problems('src/sim/clock.ts', "export { later } from './profiles/../clock.ts';\n")).toEqual([]);
  });

  it('refuses an import cycle (the model importing a view that imports it)', async () => {
    // src/output/describe.ts imports src/sim/clock.ts; clock.ts importing it back closes a cycle.
    const code = "import { jobLabels } from '../output/describe.ts';\nexport const d = jobLabels;\n";
    expect(await problems('src/sim/clock.ts', code)).toEqual(['1:import-x/no-cycle', '1:import-x/no-restricted-paths']);
  });

  it('refuses a floating promise in src/ (type-checked)', async () => {
    const code = 'export function f(): void {\n  Promise.resolve(1);\n}\n';
    expect(await problems('src/output/colour.ts', code)).toEqual(['2:@typescript-eslint/no-floating-promises']);
  });
});
