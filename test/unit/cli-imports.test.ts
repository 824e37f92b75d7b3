// What `lqsim --version`, `--help` and `list` load before any command runs (docs/performance.md):
// the CLI's entry and what it imports statically, as esbuild splits it into ES modules, must hold
// no Redis client, no UI, no scenario schema or YAML parser, no diff engine: each command imports
// those when it runs. The CLI's bundle (scripts/build-cli.mjs) is one CommonJS file read from a
// code cache, where the same boundary decides what is evaluated at start: a module imported
// lazily runs only when imported.
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const repo = new URL('../..', import.meta.url).pathname;

async function staticallyLoaded(entry: string): Promise<string[]> {
  const result = await build({
    absWorkingDir: repo,
    entryPoints: { entry },
    outdir: 'dist/cli-imports-test',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['testcontainers', '@testcontainers/redis', 'react-devtools-core'],
  });
  const outputs = result.metafile.outputs;
  const first = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === entry)!;
  const seen = new Set<string>([first]);
  for (const o of seen)
    for (const i of outputs[o]!.imports) if (i.kind === 'import-statement' && i.path in outputs) seen.add(i.path);
  return [...seen].flatMap((o) => Object.keys(outputs[o]!.inputs));
}

/** The package a bundled input belongs to, or the source file. */
const owner = (input: string): string => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input;

describe('the command line before a command runs', () => {
  it('loads commander and the CLI’s own light modules only', async () => {
    const loaded = new Set((await staticallyLoaded('src/cli.ts')).map(owner));
    for (const heavy of ['redis', '@redis/client', 'ink', 'react', 'zod', 'yaml', 'diff', 'chalk', 'testcontainers'])
      expect(loaded, heavy).not.toContain(heavy);
    expect(loaded).toContain('commander');
    for (const source of ['src/scenarios/load.ts', 'src/scenarios/runner.ts', 'src/tui/run-tui.ts'])
      expect(loaded, source).not.toContain(source);
  });

  it('the TUI draws its first frame with no Redis client, engine, schema or YAML parser loaded', async () => {
    // They come after the frame: the engine once Redis is asked for, the schema and YAML when a
    // scenario must be validated (a user's own file, before the screen) or a lab opens.
    const loaded = new Set((await staticallyLoaded('src/tui/run-tui.ts')).map(owner));
    for (const heavy of ['redis', '@redis/client', 'zod', 'yaml']) expect(loaded, heavy).not.toContain(heavy);
    for (const source of ['src/scenarios/runner.ts', 'src/scenarios/load.ts', 'src/tui/lab-session.ts'])
      expect(loaded, source).not.toContain(source);
    expect(loaded).toContain('ink');
  });

  it('lqsim list, from the cache, loads no YAML parser or schema either', async () => {
    const loaded = new Set((await staticallyLoaded('src/cli/list.ts')).map(owner));
    for (const heavy of ['zod', 'yaml', 'redis', 'ink']) expect(loaded, heavy).not.toContain(heavy);
  });
});
