import { configDefaults, defineConfig } from 'vitest/config';
import { defaultServerConditions } from 'vite';

// Two projects. `unit` needs no redis-server, PHP or terminal: its files run in parallel.
// `integration` is everything else: its files start real redis-server (and PHP) processes, so they
// run one after another, after the unit files (Vitest runs projects with `fileParallelism: false`
// as a group of their own, one file at a time, once the parallel group is done). Every test file
// matches exactly one project. Colour is forced off so text assertions are stable.
// Files that share one redis-server started by globalSetup (laravel-queue-sim/vitest-global-setup),
// in parallel: the setup the README recommends for an app's suite, proved on our own.
const SHARED_REDIS = ['test/shared-redis/**/*.test.ts'];

// The shared-redis project's globalSetup hands its server to the workers as REDIS_URL, and workers
// inherit the environment of the whole run: the other projects keep the REDIS_URL the suite was
// started with (none, usually: each file then starts its own redis-server).
const OWN_REDIS = { FORCE_COLOR: '0', REDIS_URL: process.env.REDIS_URL ?? '' };

const UNIT = [
  'test/unit/**/*.test.ts',
  'test/tui/model.test.ts',
  'test/tui/narration.test.ts',
  'test/tui/screenshot-svg.test.ts',
  'test/laravel/readme.test.ts',
];

export default defineConfig({
  // `import ... from 'laravel-queue-sim/testing'` (examples/) resolves to src/ here: see package.json exports.
  ssr: { resolve: { conditions: ['lqsim-source', ...defaultServerConditions] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { FORCE_COLOR: '0' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          env: OWN_REDIS,
          fileParallelism: true,
          // Vitest's default is one worker fewer than the cores (one, on a two-core machine);
          // these files are CPU-bound and independent, so use every core.
          maxWorkers: '100%',
          // A worker runs its files in one module graph instead of re-importing zod, yaml,
          // fast-check and src/ for each: half the time. Safe because no unit test changes global
          // state (environment, module mocks, timers) or relies on a fresh module.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          env: OWN_REDIS,
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx', 'examples/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT, ...SHARED_REDIS],
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'shared-redis',
          include: SHARED_REDIS,
          globalSetup: ['./src/testing/global-setup.ts'],
          fileParallelism: true,
          maxWorkers: 3,
          // A group of its own (another maxWorkers than unit's): after the unit files.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
