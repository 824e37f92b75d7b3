// The layers of src/ and what each may import, judged on the file an import resolves to (static
// imports, re-exports, `import type`, and `import()` with a literal), so `'./../tui/x'` or
// `'./profiles/../../tui/x'` is the tui it names. README "How it works" draws the picture: layers
// import downwards; the model (src/sim) imports only itself; views and traces never touch Redis.
// Rules apply to a file by the last entry whose `files` match it (a file's own entry after its
// layer's). Everything in src/ not listed under `may` is refused.

/** Leaf helpers any layer but the model may use: they import nothing of src/. */
const BASE = ['ci.ts', 'cleanup.ts', 'files.ts', 'package-root.ts'];
/** Every layer directory of src/. */
export const LAYERS = [
  'sim',
  'redis',
  'scenarios',
  'output',
  'trace',
  'testing',
  'lab',
  'tui',
  'explain',
  'conformance',
  'cli',
];
/** The Timeline data (and its step/command types) every view reads: the one file of src/scenarios views import. */
const TIMELINE = 'scenarios/timeline.ts';

/** @type {Array<{ files: string[], may: string[], why: string, redisPackage?: false }>} */
export const MATRIX = [
  {
    files: BASE,
    may: BASE,
    why: 'the leaf helpers (ci, cleanup, files, package-root) import nothing of src/ but each other',
  },
  {
    files: ['sim'],
    may: ['sim'],
    why: 'src/sim is the Laravel model: it imports only src/sim (and node: builtins), no package; the scenario layer imports it',
  },
  {
    files: ['redis'],
    may: ['redis', 'sim', ...BASE],
    why: "src/redis is the I/O edge: Redis servers, connections, MONITOR; it knows the model's RedisPort, nothing above",
  },
  {
    files: ['scenarios'],
    may: ['scenarios', 'sim', 'redis', ...BASE],
    why: 'src/scenarios runs the model against Redis; it is below every view (output, trace, tui) and never imports them',
  },
  {
    files: ['scenarios/trace-source.ts'],
    may: ['scenarios', 'sim', 'redis', 'trace', 'output', ...BASE],
    why: 'a scenario run registers itself as a `lqsim diff` source from its own layer (trace/source.ts is the registry)',
  },
  {
    files: ['output'],
    may: ['output', 'sim', TIMELINE, ...BASE],
    redisPackage: false,
    why: "views never touch Redis: src/output renders a Timeline (scenarios/timeline.ts) and the model's words",
  },
  {
    files: ['trace'],
    // For the type RedisTarget, declared in runner.ts: once it lives in src/redis, runner.ts leaves this row.
    may: ['trace', 'output', 'sim', TIMELINE, 'scenarios/runner.ts', ...BASE],
    redisPackage: false,
    why: 'traces never touch Redis: src/trace normalises, diffs and files Timelines; sources register themselves from their own layers',
  },
  {
    files: ['testing'],
    may: ['testing', 'trace', 'output', 'scenarios', 'sim', 'redis', ...BASE],
    why: "src/testing is the library's test API (assertTrace, matchers, the global setup that starts Redis): no CLI or UI",
  },
  {
    files: ['lab'],
    may: ['lab', 'scenarios', 'sim', 'output', ...BASE],
    why: "src/lab is the lab's pure part (commands, actions, saving): below the TUI that drives it and the CLI",
  },
  {
    files: ['tui'],
    may: ['tui', 'lab', 'output', 'trace', 'scenarios', 'sim', ...BASE],
    redisPackage: false,
    why: 'the TUI is a view: it never touches Redis (the runner it holds does), nor imports the CLI above it',
  },
  {
    files: ['explain'],
    may: ['explain', 'output', 'scenarios', 'sim', 'redis', ...BASE],
    why: 'src/explain reads a MONITOR capture (src/redis parses its lines) into a Timeline; the TUI shows it, not the other way',
  },
  {
    files: ['conformance'],
    may: ['conformance', 'scenarios', 'trace', 'output', 'sim', 'redis', ...BASE],
    why: 'src/conformance plays scenarios with real Laravel and compares traces: below the CLI, beside no view',
  },
  {
    files: ['cli', 'cli.ts'],
    may: ['cli', 'cli.ts', ...LAYERS.filter((l) => l !== 'testing' && l !== 'cli'), ...BASE],
    why: 'the CLI is the top: it may import any layer but the test API',
  },
  {
    files: ['index.ts'],
    may: ['index.ts', 'explain', 'output', 'trace', 'scenarios', 'sim', 'redis', ...BASE],
    why: 'src/index.ts is the library: no CLI, UI, lab, conformance or test API (those have their own entry points)',
  },
];
