import { defineConfig } from 'vitest/config';

// Files run one after another: integration tests start real redis-server processes and this
// machine has two cores. Colour is forced off so text assertions are stable.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx', 'examples/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { FORCE_COLOR: '0' },
  },
});
