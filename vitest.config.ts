import { defineConfig } from 'vitest/config';
import { defaultServerConditions } from 'vite';

// Files run one after another: integration tests start real redis-server processes and this
// machine has two cores. Colour is forced off so text assertions are stable.
export default defineConfig({
  // `import ... from 'laravel-queue-sim/testing'` (examples/) resolves to src/ here: see package.json exports.
  ssr: { resolve: { conditions: ['lqsim-source', ...defaultServerConditions] } },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx', 'examples/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { FORCE_COLOR: '0' },
  },
});
